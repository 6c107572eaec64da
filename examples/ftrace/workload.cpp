//go:build cgo

// The program traced: the seed's test.cpp, with main renamed (the Go
// program has the main). Compiled with -finstrument-functions (trace.go's
// #cgo CXXFLAGS), so every function here, the implicit ones too, reports
// its entry and exit to trace.c. The lines matter: main_test.go expects
// them.

#include "trace.h"

class B {
public:
	B() {}
	virtual ~B() {}
	virtual void f() {}
};

class D : public B {
public:
	D() {}
	virtual void f() {}
};

void f1(int a) {}
void f2(int b) {}

extern "C" void ftrace_workload(void) {
	f1(0);
	f2(0);
	B *o = new D();
	o->f();
	delete o;
}
