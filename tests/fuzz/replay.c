/* Runs each file (or each file in each directory) named on the command
 * line once through a fuzz target, with no fuzzing engine: `make test`
 * replays the corpora with it, and `make fuzz` measures coverage with it. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	uint8_t *copy = malloc(n ? n : 1);   /* its own block: ASan sees overreads */
	memcpy(copy, buf, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;
	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d) {
			if (replay_file(argv[i]) < 0)
				return 1;
			files++;
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			char path[4096];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (replay_file(path) < 0)
				return 1;
			files++;
		}
		closedir(d);
	}
	printf("%s: %d inputs replayed, every invariant held\n", argv[0], files);
	return 0;
}
