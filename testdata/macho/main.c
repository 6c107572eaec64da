/* Freestanding fixture for package macho: no SDK headers exist on the build
 * machine, so nothing is #included. */
int helper(int x);
extern int lib_add(int a, int b);
int counter = 3;
static int scount;
static int sq(int x) { return x * x; }
int helper(int x) { scount++; return sq(x) + counter; }
int main(void) { return helper(2) + lib_add(1, 2); }
