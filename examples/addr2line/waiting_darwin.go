package main

// fionread is FIONREAD of <sys/filio.h>, _IOR('f', 127, int).
const fionread = 0x4004667f
