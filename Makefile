# vmreplay — capture → traces → replay → analysis → plots.
#
#   make            build build/vmreplay, the agent, the workloads, the man
#                   pages and the tests
#   make figures    the main job: bundled traces → out/ (runs deps first)
#   make check      every test; ends with "N passed, N failed" (runs deps
#                   and deps-slurm first)
#   make check-asan the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-unit the cmocka tests alone (no root, tracefs or Slurm needed)
#   make bench      speed targets (benchmarks, never tests)
#   make fuzz       the libFuzzer targets (tests/fuzz/, clang) in build-fuzz/tests/fuzz/;
#                   make fuzz-long runs each for FUZZ_RUNS executions
#   make install    install under DESTDIR + PREFIX (default /usr/local);
#                   make uninstall removes it again
#   make deb        the Debian package (debian/) in build/deb/, and lintian
#   make deps       install the missing Debian packages (root), or print the line
#                   (deps-slurm: the Slurm daemons of the Slurm test;
#                   deps-deb: the Debian packaging tools)
#
# CC, CFLAGS, CPPFLAGS and LDFLAGS from the environment or the command line
# are honoured (added after the project's own flags).  WERROR=-Werror in the
# project's own builds and CI; a distribution build can set WERROR= so that
# a newer compiler's new warning does not fail it.

BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CC      ?= cc
CFLAGS  ?= -g $(OPT)
WERROR  ?= -Werror
# Link-time optimisation of build/vmreplay: the replay's hot paths cross
# files (mm_inline.h's callers, generations.c, workingset.c, engine.c);
# inlined across them a replay runs ~11 % fewer instructions (callgrind).
# The objects stay fat, so the tests link without it.  GCC only (clang 14
# has no fat LTO objects), off in the sanitizer builds (check-asan, fuzz)
# and with LTO= .
CC_IS_CLANG := $(shell $(CC) --version 2>/dev/null | grep -c clang)
LTO     ?= $(if $(SAN),,$(if $(filter 0,$(CC_IS_CLANG)),-flto=auto -ffat-lto-objects))

# Install directories (the GNU names; DESTDIR is prepended to each).
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
libexecdir  ?= $(exec_prefix)/libexec
datarootdir ?= $(prefix)/share
datadir     ?= $(datarootdir)
mandir      ?= $(datarootdir)/man
docdir      ?= $(datarootdir)/doc/vmreplay
bashcompdir ?= $(datadir)/bash-completion/completions
pkglibexecdir := $(libexecdir)/vmreplay
pkgdatadir    := $(datadir)/vmreplay

# Debian 12 packages: to build, to run (capture, figures) and to test
# (pdflatex, with booktabs, compiles the LaTeX tables and figures);
# the Slurm daemons only for the Slurm test; the packaging tools for make deb.
DEB_PKGS := gcc clang make pkg-config scdoc libbabeltrace2-dev liblttng-ust-dev libbpf-dev bpftool \
            libgsl-dev libtracefs-dev libtraceevent-dev libtracecmd-dev libxxhash-dev \
            libcmocka-dev libarchive-dev zstd xz-utils fio \
            babeltrace2 lttng-tools trace-cmd gnuplot-nox \
            bc poppler-utils man-db bash-completion \
            texlive-latex-base texlive-latex-recommended
DEB_SLURM_PKGS := munge slurmctld slurmd slurm-client
DEB_DEB_PKGS := dpkg-dev debhelper lintian

PKGS     := babeltrace2 gsl libxxhash libarchive libtracecmd
VMR_CPPFLAGS := -D_GNU_SOURCE -Ilib -Ireplay -Ianalysis -Iplots -Icapture -Itests $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
VMR_CFLAGS   := -std=gnu11 -Wall -Wextra $(WERROR)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread
COMPILE   = $(CC) $(VMR_CPPFLAGS) $(CPPFLAGS) $(VMR_CFLAGS) $(CFLAGS) $(LTO) $(SAN)
LINK      = $(CC) $(CFLAGS) $(SAN) $(LDFLAGS)

# Every stage's C files except the command's entry point form one library
# that the tests link against.
MAIN_SRC := replay/vmreplay.c
LIB_SRCS := $(filter-out $(MAIN_SRC),$(wildcard lib/*.c replay/*.c replay/*/*.c replay/*/*/*.c \
                analysis/*.c plots/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)

# The LTTng-UST tracepoint provider, linked statically into each workload.
TP_SRC   := capture/vmreplay_tp.c
TP_OBJ   := $(BUILD)/capture/vmreplay_tp.o
WL_COMMON_SRCS := $(wildcard capture/workloads/wl_*.c)
WL_COMMON_OBJS := $(WL_COMMON_SRCS:%.c=$(BUILD)/%.o)
WL_SRCS  := $(filter-out $(WL_COMMON_SRCS),$(wildcard capture/workloads/*.c))
WL_BINS  := $(WL_SRCS:capture/workloads/%.c=$(BUILD)/workloads/%)
UST_LIBS := $(shell pkg-config --libs lttng-ust 2>/dev/null) -ldl -lpthread

# `vmreplay capture`: the front end is part of build/vmreplay; the tracefs
# bridge is a separate agent linked with lttng-ust, libtracefs and
# libtraceevent, so that build/vmreplay itself needs none of them.
CAPTURE_FE_SRCS := capture/cmd_capture.c capture/capture_sys.c capture/drop_caches.c capture/exec_inputs.c capture/kernel_ctf.c \
                   capture/kernel_ctf_read.c capture/kernel_ctf_write.c
CAPTURE_FE_OBJS := $(CAPTURE_FE_SRCS:%.c=$(BUILD)/%.o)
AGENT_SRCS := capture/agent.c capture/blk_latency.c capture/blk_geometry.c capture/pte_young.c \
              capture/vmreplay_kernel_tp.c capture/vmreplay_capture_tp.c
AGENT_OBJS := $(AGENT_SRCS:%.c=$(BUILD)/%.o) $(TP_OBJ)
AGENT_BIN  := $(BUILD)/vmreplay-capture-agent
TRACEFS_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null)
TRACEFS_LIBS   := $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null)

# libFuzzer targets: the library built again with clang, ASan, UBSan and
# the fuzzer's coverage (tests/fuzz/README.md).
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%)
FUZZ_SAN  := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_RUNS ?= 10000000

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)
# tests/vmrgen: synthetic traces at scale for the benchmarks (synth_vmr.h).
VMRGEN   := $(BUILD)/tests/vmrgen

# Man pages: doc/man/NAME.SECTION.scd → BUILD/man/NAME.SECTION (scdoc).
MAN_SRCS  := $(wildcard doc/man/*.scd)
MAN_PAGES := $(MAN_SRCS:doc/man/%.scd=$(BUILD)/man/%)
COMPLETION := doc/completion/vmreplay.bash
DOCS      := README.md $(shell find capture replay analysis plots doc -name '*.md' 2>/dev/null | sort)

# Where the installed binary finds the agent, the workloads and the gnuplot
# scripts (lib/paths.c): relative to bindir first, so that a tree
# installed under DESTDIR or moved as a whole works, then these absolute
# paths.  A stamp file rebuilds paths.o when they change.
PATH_DEFS := -DVMREPLAY_PKGLIBEXECDIR='"$(pkglibexecdir)"' \
             -DVMREPLAY_PKGDATADIR='"$(pkgdatadir)"' \
             -DVMREPLAY_BIN_TO_LIBEXEC='"$(shell realpath -m --relative-to='$(bindir)' '$(pkglibexecdir)')"' \
             -DVMREPLAY_BIN_TO_DATA='"$(shell realpath -m --relative-to='$(bindir)' '$(pkgdatadir)')"'

.SECONDARY:
.PHONY: all programs man deps deps-slurm deps-deb check check-asan check-unit \
	experiments experiments-programs $(EXPERIMENTS) \
        bench figures fidelity clean test-build install uninstall deb fuzz fuzz-bins fuzz-long FORCE
all: programs $(TEST_BINS) $(VMRGEN)
programs: $(BUILD)/vmreplay $(AGENT_BIN) $(WL_BINS) man
man: $(MAN_PAGES)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(COMPILE) -MMD -MP -c $< -o $@

$(BUILD)/lib/paths.o: VMR_CPPFLAGS += $(PATH_DEFS)
$(BUILD)/lib/paths.o: $(BUILD)/install-dirs
$(BUILD)/install-dirs: FORCE
	@mkdir -p $(dir $@)
	@echo "$(pkglibexecdir) $(pkgdatadir) $(bindir)" | cmp -s - $@ || \
	  echo "$(pkglibexecdir) $(pkgdatadir) $(bindir)" >$@

$(BUILD)/vmreplay: $(BUILD)/$(MAIN_SRC:.c=.o) $(LIB_OBJS) $(CAPTURE_FE_OBJS)
	$(LINK) $(LTO) $^ $(LDLIBS) -o $@

$(BUILD)/capture/agent.o: VMR_CPPFLAGS += $(TRACEFS_CFLAGS)
$(AGENT_BIN): $(AGENT_OBJS)
	$(LINK) $^ $(TRACEFS_LIBS) $(UST_LIBS) -lbpf -o $@

# The accessed-bit sampler's BPF programs (capture/pte_young.bpf.c),
# compiled for the BPF target and embedded in the agent as a libbpf
# skeleton; CO-RE relocates their two kernel fields at load.
BPF_ARCH_INC := -I/usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)
$(BUILD)/capture/pte_young.bpf.o: capture/pte_young.bpf.c capture/pte_young.h
	@mkdir -p $(dir $@)
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 $(BPF_ARCH_INC) -Icapture -Wall $(WERROR) -c $< -o $@
$(BUILD)/capture/pte_young.skel.h: $(BUILD)/capture/pte_young.bpf.o
	bpftool gen skeleton $< name pte_young >$@.tmp && mv $@.tmp $@
$(BUILD)/capture/pte_young.o: $(BUILD)/capture/pte_young.skel.h
$(BUILD)/capture/pte_young.o: VMR_CPPFLAGS += -I$(BUILD)/capture

$(BUILD)/workloads/%: $(BUILD)/capture/workloads/%.o $(WL_COMMON_OBJS) $(TP_OBJ)
	@mkdir -p $(dir $@)
	$(LINK) $^ $(UST_LIBS) -lm -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(LINK) $^ $(LDLIBS) -lcmocka -o $@

# The agent's request matching, tested on its own (it is no part of the library).
$(BUILD)/tests/test_blk_latency: $(BUILD)/capture/blk_latency.o

$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(LINK) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

fuzz:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT=-O1 SAN="$(FUZZ_SAN)" fuzz-bins
fuzz-bins: $(FUZZ_BINS)
fuzz-long: fuzz
	@FUZZ_RUNS=$(FUZZ_RUNS) bash tests/t_fuzz.sh build-fuzz

$(BUILD)/man/%: doc/man/%.scd
	@mkdir -p $(dir $@)
	scdoc <$< >$@.tmp && mv $@.tmp $@

# Tools the shell tests run (tests/tools/; not tests themselves, no cmocka).
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(wildcard tests/tools/*.c))
all: $(TOOL_BINS)
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(LINK) $^ $(LDLIBS) -o $@

install: programs
	install -d '$(DESTDIR)$(bindir)' '$(DESTDIR)$(pkglibexecdir)' \
	  '$(DESTDIR)$(pkgdatadir)/plots' '$(DESTDIR)$(mandir)/man1' \
	  '$(DESTDIR)$(mandir)/man5' '$(DESTDIR)$(bashcompdir)' '$(DESTDIR)$(docdir)'
	install -m 755 $(BUILD)/vmreplay '$(DESTDIR)$(bindir)/vmreplay'
	install -m 755 $(AGENT_BIN) $(WL_BINS) '$(DESTDIR)$(pkglibexecdir)'
	install -m 755 capture/ust-capture.sh '$(DESTDIR)$(pkglibexecdir)/ust-capture'
	install -m 644 plots/*.gp '$(DESTDIR)$(pkgdatadir)/plots'
	install -m 644 $(filter %.1,$(MAN_PAGES)) '$(DESTDIR)$(mandir)/man1'
	install -m 644 $(filter %.5,$(MAN_PAGES)) '$(DESTDIR)$(mandir)/man5'
	install -m 644 $(COMPLETION) '$(DESTDIR)$(bashcompdir)/vmreplay'
	for f in $(DOCS); do install -D -m 644 "$$f" '$(DESTDIR)$(docdir)'/"$$f" || exit 1; done

uninstall:
	rm -f '$(DESTDIR)$(bindir)/vmreplay' \
	  $(foreach f,$(notdir $(AGENT_BIN) $(WL_BINS)) ust-capture,'$(DESTDIR)$(pkglibexecdir)/$(f)') \
	  $(foreach f,$(notdir $(wildcard plots/*.gp)),'$(DESTDIR)$(pkgdatadir)/plots/$(f)') \
	  $(foreach f,$(notdir $(MAN_PAGES)),'$(DESTDIR)$(mandir)/man$(subst .,,$(suffix $(f)))/$(f)') \
	  '$(DESTDIR)$(bashcompdir)/vmreplay' \
	  $(foreach f,$(DOCS),'$(DESTDIR)$(docdir)/$(f)')
	@if [ -d '$(DESTDIR)$(docdir)' ]; then find '$(DESTDIR)$(docdir)' -depth -type d -empty -delete; fi
	@for d in '$(DESTDIR)$(pkglibexecdir)' '$(DESTDIR)$(pkgdatadir)/plots' \
	  '$(DESTDIR)$(pkgdatadir)'; do \
	  if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d"; fi; done

# $(call apt,PACKAGES): installs those of PACKAGES that are missing.
apt = @missing=$$(for p in $(1); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done | tr '\n' ' '); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "vmreplay: missing packages; as root run: apt-get install -y $$missing" >&2; exit 1; fi; \
	echo "vmreplay: installing $$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

deps:
	$(call apt,$(DEB_PKGS))
deps-slurm:
	$(call apt,$(DEB_SLURM_PKGS))
deps-deb:
	$(call apt,$(DEB_DEB_PKGS))

test-build: all

check: deps deps-slurm
	@$(MAKE) --no-print-directory test-build
	@$(MAKE) --no-print-directory fuzz
	@tests/run.sh $(BUILD)

check-asan: deps deps-slurm
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 tests/run.sh build-asan

check-unit: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do \
	  CMOCKA_MESSAGE_OUTPUT=TAP $$t >$$t.log 2>&1 || { cat $$t.log; echo "FAIL $$t"; exit 1; }; \
	done; echo "$(words $(TEST_BINS)) cmocka test programs passed"

bench: deps
	@$(MAKE) --no-print-directory all
	@tests/bench.sh $(BUILD)

figures: deps
	@$(MAKE) --no-print-directory all
	@plots/figures.sh $(BUILD) out

# The three linux-mm experiments (analysis/experiments/): each captures
# its workload where no capture is cached (/var/cache/vmreplay/
# experiments; root, the test bed), replays it under the policies its
# paper compared and writes the paper's tables into out/experiments/.
EXPERIMENTS = experiment-swappiness experiment-throttle experiment-early-exit
experiments: $(EXPERIMENTS)
experiments-programs: deps
	@$(MAKE) --no-print-directory programs
$(EXPERIMENTS): experiments-programs
	@analysis/experiments/$(@:experiment-%=%).sh $(BUILD) out/experiments

# traces/FIDELITY.md: the scoreboard of the committed real sessions, and
# the cells it passes, which tests/t_fidelity.sh holds the model to.
fidelity: deps
	@$(MAKE) --no-print-directory programs
	@tests/fidelity.sh $(BUILD)

# The .deb of this tree, built in a copy so that the packaging's clean and
# build leave this tree alone: build/deb/*.deb, then lintian.
deb: deps deps-deb
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/src
	tar -c --exclude=./.git --exclude='./build*' --exclude=./out -f - . | tar -x -C $(BUILD)/deb/src -f -
	cd $(BUILD)/deb/src && dpkg-buildpackage -us -uc -b
	mkdir -p $(BUILD)/deb/tmp   # lintian leaves its ELF caches in TMPDIR
	TMPDIR=$(abspath $(BUILD))/deb/tmp \
	  lintian --info $$([ "$$(id -u)" = 0 ] && echo --allow-root) $(BUILD)/deb/*.changes

clean:
	rm -rf build build-asan build-fuzz out

include capture/testbed/testbed.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
