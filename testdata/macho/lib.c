/* Freestanding dylib fixture for package macho. */
int lib_data = 7;
int lib_add(int a, int b) { return a + b + lib_data; }
int lib_mul(int a, int b) { return a * b; }
