/* Thumb-2 and ARM code in one file, for the symbol-table rules of 32-bit
 * ARM: built with -mthumb, so functions are Thumb (STT_FUNC st_value odd)
 * unless marked arm_fn (ARM mode, even). No libc: -nostdlib. */
typedef unsigned int u32;

#define arm_fn __attribute__((noinline, target("arm")))
#define thumb_fn __attribute__((noinline))

static volatile u32 sink;
u32 table[16] = {1, 2, 3, 5, 8, 13, 21, 34};
const char greeting[] = "hello, thumb";

thumb_fn static u32 mix(u32 a, u32 b) { return (a * 2654435761u) ^ (b >> 3); }

/* ARM mode, called from Thumb code through BLX. */
arm_fn u32 arm_sum(const u32 *p, int n) {
	u32 s = 0;
	for (int i = 0; i < n; i++)
		s += p[i] * (u32)i + mix(s, (u32)i);
	return s;
}

arm_fn static u32 arm_local(u32 x) { return x * 0x01000193u ^ 0x811c9dc5u; }

/* A dense switch: a table lookup with a literal pool, $d data in Thumb code. */
thumb_fn int classify(int c) {
	switch (c) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 53;
	case 5: return 67;
	case 6: return 79;
	case 7: return 83;
	default: return -1;
	}
}

/* Aliases: three names for one Thumb function, one of them weak. */
int classify_alias(int c) __attribute__((alias("classify")));
__attribute__((weak)) int classify_weak(int c) __attribute__((alias("classify")));

__attribute__((weak)) thumb_fn u32 weak_fn(u32 x) { return mix(x, 7) + arm_local(x); }

/* IFUNC: the resolver is a Thumb function; the IFUNC symbol keeps the odd
 * value, only STT_FUNC symbols lose the Thumb bit. */
static u32 impl_a(u32 x) { return x + 1; }
__attribute__((used)) static u32 (*resolve_pick(void))(u32) { return impl_a; }
u32 picked(u32 x) __attribute__((ifunc("resolve_pick")));

/* Hand-written Thumb code: an unnamed NOTYPE symbol at the odd (Thumb-bit)
 * value of a function, like those of an Android NDK libc++, which LLVM 14
 * drops on ARM like every nameless ARM symbol; and an OBJECT table in .text. */
__asm__(".text\n"
	".thumb\n"
	".p2align 2\n"
	".globl asm_thumb\n"
	".type asm_thumb,%function\n"
	".thumb_func\n"
	"asm_thumb:\n"
	".Lasm_thumb:\n"
	"	adds r0, r0, #1\n"
	"	adds r0, r0, #2\n"
	"	adds r0, r0, #3\n"
	"	adds r0, r0, #4\n"
	"	adds r0, r0, #5\n"
	"	adds r0, r0, #6\n"
	"	adds r0, r0, #7\n"
	"	bx lr\n"
	".size asm_thumb, .-asm_thumb\n"
	"\"\" = .Lasm_thumb + 1\n"
	".p2align 2\n"
	".globl asm_table\n"
	".type asm_table,%object\n"
	"asm_table:\n"
	"	.word 0x11111111, 0x22222222, 0x33333333\n"
	".size asm_table, .-asm_table\n");

/* Hand-written Thumb code whose entry point is also published the way
 * assembly does for function pointers: a NOTYPE symbol at the odd
 * (Thumb-bit) value, which keeps its bit and so starts one byte in; and a
 * NOTYPE label inside the function. */
__asm__(".text\n"
	".thumb\n"
	".p2align 2\n"
	".globl asm_thumb2\n"
	".type asm_thumb2,%function\n"
	".thumb_func\n"
	"asm_thumb2:\n"
	".Lasm_thumb2:\n"
	"	subs r0, r0, #1\n"
	"	subs r0, r0, #2\n"
	"	subs r0, r0, #3\n"
	".globl asm_thumb2_mid\n"
	"asm_thumb2_mid:\n"
	"	subs r0, r0, #4\n"
	"	bx lr\n"
	".size asm_thumb2, .-asm_thumb2\n"
	".globl asm_thumb2_ptr\n"
	"asm_thumb2_ptr = .Lasm_thumb2 + 1\n");

u32 asm_thumb(u32);
u32 asm_thumb2(u32);
int cpp_entry(const char *s, int n);

thumb_fn u32 entry(void) {
	u32 s = arm_sum(table, 16);
	s += (u32)classify((int)s & 7) + (u32)classify_alias(3) + (u32)classify_weak(4);
	s += weak_fn(s) + picked(s) + asm_thumb(s) + asm_thumb2(s);
	s += (u32)cpp_entry(greeting, (int)sizeof greeting);
	sink = s;
	return s + (u32)greeting[3];
}
