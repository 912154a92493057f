# vmreplay — capture → traces → replay → analysis → plots.
#
#   make            build build/vmreplay, the workloads and the tests
#   make figures    the main job: bundled traces → out/ (runs deps first)
#   make check      every test; ends with "N passed, N failed" (runs deps first)
#   make check-asan the same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make bench      speed targets (benchmarks, never tests)
#   make deps       install the missing Debian packages (root), or print the line

BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CC      ?= cc

# Debian 12 packages the project needs to build, test and draw.
DEB_PKGS := gcc make pkg-config bc babeltrace2 libbabeltrace2-dev lttng-tools \
            liblttng-ust-dev libgsl-dev gnuplot-nox libtracefs-dev \
            libtraceevent-dev libxxhash-dev libcmocka-dev poppler-utils \
            munge slurmctld slurmd slurm-client

PKGS     := babeltrace2 gsl libxxhash
CPPFLAGS := -D_GNU_SOURCE -Ireplay -Ianalysis -Iplots -Icapture -Itests $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS   := -std=gnu11 -g $(OPT) -Wall -Wextra -Werror $(SAN)
LDFLAGS  := $(SAN)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

# Every stage's C files except the command's entry point form one library
# that the tests link against.
MAIN_SRC := replay/vmreplay.c
LIB_SRCS := $(filter-out $(MAIN_SRC),$(wildcard replay/*.c analysis/*.c plots/*.c))
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
CAPTURE_FE_SRCS := capture/cmd_capture.c capture/capture_sys.c
CAPTURE_FE_OBJS := $(CAPTURE_FE_SRCS:%.c=$(BUILD)/%.o)
AGENT_SRCS := capture/agent.c capture/vmreplay_kernel_tp.c capture/vmreplay_capture_tp.c
AGENT_OBJS := $(AGENT_SRCS:%.c=$(BUILD)/%.o) $(TP_OBJ)
AGENT_BIN  := $(BUILD)/vmreplay-capture-agent
TRACEFS_CFLAGS := $(shell pkg-config --cflags libtracefs libtraceevent 2>/dev/null)
TRACEFS_LIBS   := $(shell pkg-config --libs libtracefs libtraceevent 2>/dev/null)

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.SECONDARY:
.PHONY: all deps check check-asan bench figures clean test-build
all: $(BUILD)/vmreplay $(AGENT_BIN) $(WL_BINS) $(TEST_BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/vmreplay: $(BUILD)/$(MAIN_SRC:.c=.o) $(LIB_OBJS) $(CAPTURE_FE_OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/capture/agent.o: CPPFLAGS += $(TRACEFS_CFLAGS)
$(AGENT_BIN): $(AGENT_OBJS)
	$(CC) $(LDFLAGS) $^ $(TRACEFS_LIBS) $(UST_LIBS) -o $@

$(BUILD)/workloads/%: $(BUILD)/capture/workloads/%.o $(WL_COMMON_OBJS) $(TP_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(UST_LIBS) -lm -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcmocka -o $@

deps:
	@missing=$$(for p in $(DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done | tr '\n' ' '); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "vmreplay: missing packages; as root run: apt-get install -y $$missing" >&2; exit 1; fi; \
	echo "vmreplay: installing $$missing"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

test-build: all

check: deps
	@$(MAKE) --no-print-directory test-build
	@tests/run.sh $(BUILD)

check-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" test-build
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  tests/run.sh build-asan

bench: deps
	@$(MAKE) --no-print-directory all
	@tests/bench.sh $(BUILD)

figures: deps
	@$(MAKE) --no-print-directory all
	@plots/figures.sh $(BUILD) out

clean:
	rm -rf build build-asan out

include capture/testbed/testbed.mk

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
