# entropy/: the portable entropy core and its host tests.
# Included by the top-level Makefile; also works alone:
#   make -f entropy/entropy.mk test-entropy | fuzz-entropy | bench-host
# (`make fuzz` at the top runs this target with every other one: tests/fuzz/fuzz.mk)

BUILD ?= build
ENTROPY_SRCS := $(wildcard entropy/*.c)

# Rules below must not become the top-level Makefile's default goal.
ENTROPY_SAVED_GOAL := $(.DEFAULT_GOAL)

ENTROPY_PYTHON := /usr/bin/python3
ENTROPY_HOST := $(BUILD)/host
ENTROPY_HOST_CC := gcc
ENTROPY_HOST_CFLAGS := -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Werror -I. -Itests/fuzz -I$(ENTROPY_HOST)/gen
ENTROPY_HDRS := entropy/entropy.h entropy/entropy_hooks.h entropy/entropy_internal.h
ENTROPY_STUB := tests/unit/entropy_platform_stub.c
ENTROPY_OPS := tests/fuzz/entropy_ops.c tests/fuzz/entropy_ops.h
CREDIT_VECTORS := $(sort $(wildcard tests/vectors/credit/*.txt))
ENTROPY_TESTS := test_entropy test_entropy_crypto test_entropy_props test_entropy_measure \
	test_entropy_est_stat test_entropy_est_pred test_entropy_crng test_entropy_credit
ENTROPY_TEST_BINS := $(addprefix $(ENTROPY_HOST)/,$(ENTROPY_TESTS))
FUZZ_SECONDS ?= 60

.PHONY: test-entropy fuzz-entropy bench-host h-estimate

# The Python model generates the mixing/extraction vectors on every build.
$(ENTROPY_HOST)/gen/mix_vectors.h: tests/model/mix_model.py
	@mkdir -p $(dir $@)
	$(ENTROPY_PYTHON) tests/model/mix_model.py $@

$(ENTROPY_HOST)/test_entropy: tests/unit/test_entropy.c $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

$(ENTROPY_HOST)/test_entropy_measure: tests/unit/test_entropy_measure.c $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

# The predictors against ea_non_iid's stored figures (tests/vectors/).
$(ENTROPY_HOST)/test_entropy_est_pred: tests/unit/test_entropy_est_pred.c tests/vectors/pred_expected.h \
		$(wildcard tests/vectors/*.bin) $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

$(ENTROPY_HOST)/test_entropy_crypto: tests/unit/test_entropy_crypto.c $(ENTROPY_HOST)/gen/mix_vectors.h \
		$(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

# The estimators' vectors: committed symbols, ea_non_iid's figures (run once).
ENTROPY_EST_VEC := tests/vectors/est_stat_vectors.py tests/vectors/est_stat/expected.txt \
	$(wildcard tests/vectors/est_stat/*.bin)
$(ENTROPY_HOST)/gen/est_stat_vectors.h: $(ENTROPY_EST_VEC)
	@mkdir -p $(dir $@)
	$(ENTROPY_PYTHON) tests/vectors/est_stat_vectors.py header $@

$(ENTROPY_HOST)/test_entropy_est_stat: tests/unit/test_entropy_est_stat.c \
		$(ENTROPY_HOST)/gen/est_stat_vectors.h $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

# The credit rule on stored captures, against the full assessment (tools/full_assess.c).
$(ENTROPY_HOST)/test_entropy_credit: tests/unit/test_entropy_credit.c tools/full_assess.c \
		tools/full_assess.h $(CREDIT_VECTORS) $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< tools/full_assess.c $(ENTROPY_SRCS) \
		$(ENTROPY_STUB) -lcmocka

# urandom's generator: RFC 8439 vectors, erasure, schedule, v1.89's recorded bytes.
$(ENTROPY_HOST)/test_entropy_crng: tests/unit/test_entropy_crng.c tests/vectors/urandom_v189/scenario.h \
		tests/vectors/urandom_v189/v189.bin $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

$(ENTROPY_HOST)/test_entropy_props: tests/unit/test_entropy_props.c $(ENTROPY_OPS) \
		$(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) $(ENTROPY_HOST_CFLAGS) -o $@ $< tests/fuzz/entropy_ops.c \
		$(ENTROPY_SRCS) $(ENTROPY_STUB) -lcmocka

# Each binary prints cmocka's summary; any failure stops make.
test-entropy: $(ENTROPY_TEST_BINS) $(ENTROPY_HOST)/gen/mix_vectors.h $(ENTROPY_HOST)/h_estimate \
		$(ENTROPY_HOST)/credit_derive
	@set -e; for t in $(ENTROPY_TEST_BINS); do echo "== $$t"; $$t; done
	@echo "== credit_derive --check (RNG_PAY_PERMILLE against tests/vectors/credit/)"
	@$(ENTROPY_HOST)/credit_derive --check $(CREDIT_VECTORS) > $(ENTROPY_HOST)/credit_derive.out || \
		{ cat $(ENTROPY_HOST)/credit_derive.out; exit 1; }
	@echo "== tests/model (pytest; scripts/deps installs it: missing, it fails)"
	@$(ENTROPY_PYTHON) -m pytest -q -p no:cacheprovider tests/model

# libFuzzer: arbitrary sample/flush/read sequences, invariants asserted.
$(ENTROPY_HOST)/fuzz_entropy: tests/fuzz/fuzz_entropy.c $(ENTROPY_OPS) $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Wall -Wextra -Werror -I. -Itests/fuzz -o $@ $< tests/fuzz/entropy_ops.c \
		$(ENTROPY_SRCS) $(ENTROPY_STUB)

fuzz-entropy: $(ENTROPY_HOST)/fuzz_entropy
	@mkdir -p $(ENTROPY_HOST)/fuzz-corpus
	$(ENTROPY_HOST)/fuzz_entropy -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-print_final_stats=1 $(ENTROPY_HOST)/fuzz-corpus

# The on-board estimator and the full SP 800-90B 6.3 assessment on a
# `samples` capture (tools/h_estimate.c).
ENTROPY_ASSESS := tools/full_assess.c entropy/measure.c entropy/est_stat.c entropy/est_pred.c \
	entropy/fixed.c
$(ENTROPY_HOST)/h_estimate: tools/h_estimate.c $(ENTROPY_ASSESS) tools/full_assess.h $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o $@ $< $(ENTROPY_ASSESS)

h-estimate: $(ENTROPY_HOST)/h_estimate

# What a window of n samples is paid, derived from stored captures
# (tools/credit_derive.c); `--check` in test-entropy holds the table to it.
$(ENTROPY_HOST)/credit_derive: tools/credit_derive.c $(ENTROPY_ASSESS) tools/full_assess.h $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	$(ENTROPY_HOST_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o $@ $< $(ENTROPY_ASSESS) -lm

# Exact instruction counts per operation, under callgrind: a benchmark,
# not a test (no thresholds), so its driver lives in tools/bench/.
$(ENTROPY_HOST)/bench_entropy: tools/bench/bench_entropy.c $(ENTROPY_SRCS) $(ENTROPY_STUB) $(ENTROPY_HDRS)
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -g -O2 -Wall -Wextra -Werror -I. -o $@ $< $(ENTROPY_SRCS) $(ENTROPY_STUB)

bench-host: $(ENTROPY_HOST)/bench_entropy
	@rm -rf $(ENTROPY_HOST)/callgrind && mkdir -p $(ENTROPY_HOST)/callgrind
	valgrind --tool=callgrind --instr-atstart=no --dump-line=no \
		--callgrind-out-file=$(ENTROPY_HOST)/callgrind/out.%p \
		$(ENTROPY_HOST)/bench_entropy 2> $(ENTROPY_HOST)/callgrind/valgrind.log || \
		{ cat $(ENTROPY_HOST)/callgrind/valgrind.log; exit 1; }
	$(ENTROPY_PYTHON) tools/bench/callgrind_table.py $(ENTROPY_HOST)/callgrind

.DEFAULT_GOAL := $(ENTROPY_SAVED_GOAL)
