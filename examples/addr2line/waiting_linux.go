package main

import "syscall"

const fionread = syscall.TIOCINQ
