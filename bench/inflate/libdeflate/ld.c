/* ld: times libdeflate_zlib_decompress on one zlib stream, as
   bench/inflate does internal/inflate: the output buffer faulted in first,
   wall, CPU (user+sys) and user seconds per round.
   gcc -O2 -o /tmp/ld ld.c -ldeflate && /tmp/ld /tmp/rgw-info.zlib 314596110 5 */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu(double *user) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	return *user + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: ld stream size rounds\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long zn = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *z = malloc(zn);
	if (fread(z, 1, zn, f) != (size_t)zn) {
		perror("read");
		return 1;
	}
	size_t size = strtoul(argv[2], 0, 10);
	int rounds = atoi(argv[3]);
	char *out = malloc(size);
	for (size_t i = 0; i < size; i += 4096)
		out[i] = 1;
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	for (int r = 0; r < rounds; r++) {
		size_t n;
		double u0, u1;
		double c0 = cpu(&u0), t0 = now();
		enum libdeflate_result res = libdeflate_zlib_decompress(d, z, zn, out, size, &n);
		double wall = now() - t0, c = cpu(&u1) - c0;
		if (res != LIBDEFLATE_SUCCESS || n != size) {
			fprintf(stderr, "result %d, %zu bytes\n", res, n);
			return 1;
		}
		printf("round %d libdeflate wall %.3f cpu %.3f user %.3f\n", r, wall, c, u1 - u0);
	}
	return 0;
}
