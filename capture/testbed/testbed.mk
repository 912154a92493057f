# capture/testbed/testbed.mk - the User-Mode Linux test bed (included by
# the top Makefile).
#
#   make testbed        build the guest kernel once and cache it outside the
#                       clone (capture/testbed/build.sh; 11-20 min the first
#                       time, nothing after): TESTBED_KERNEL=6.12 (default),
#                       6.1 or a kernel tree; VMREPLAY_TESTBED_CACHE moves
#                       the cache (default /var/cache/vmreplay/testbed)
#   make testbed-deps   install what the build and the guest need (root)
#
# `make deps` installs the test bed's packages too, and `make check` builds
# the test bed first (tests/t_testbed.sh captures in it; a one-time build).

TESTBED_KERNEL ?= 6.12
TESTBED_DEB_PKGS := flex bison bc patch xz-utils util-linux dmsetup uml-utilities

.PHONY: testbed testbed-deps
testbed: testbed-deps
	@capture/testbed/build.sh --kernel $(TESTBED_KERNEL) >/dev/null

testbed-deps:
	@missing=$$(for p in $(TESTBED_DEB_PKGS); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	  done | tr '\n' ' '); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
	  echo "vmreplay: missing packages (test bed); as root run: apt-get install -y $$missing" >&2; exit 1; fi; \
	echo "vmreplay: installing $$missing (test bed)"; \
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing

deps: testbed-deps
# Built before the tests; a build that fails does not stop the other tests
# (tests/t_testbed.sh then fails, saying why).
check check-asan: testbed-for-check
.PHONY: testbed-for-check
testbed-for-check: testbed-deps
	@capture/testbed/build.sh --kernel $(TESTBED_KERNEL) >/dev/null || \
	  echo "vmreplay: the test bed's kernel did not build (tests/t_testbed.sh reports it)" >&2

# `vmreplay capture --kernel`: the host side of a capture in the guest,
# part of build/vmreplay (an extra prerequisite: the link rule uses $^).
$(BUILD)/vmreplay: $(BUILD)/capture/capture_testbed.o
