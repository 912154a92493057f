# capture/testbed/testbed.mk - the User-Mode Linux test bed (included by
# the top Makefile).
#
#   make testbed        build the guest kernel once and cache it outside the
#                       clone (capture/testbed/build.sh; 6-20 min the first
#                       time, nothing after): TESTBED_KERNEL=6.12 (default),
#                       6.1 or a kernel tree; VMREPLAY_TESTBED_CACHE moves
#                       the cache (default /var/cache/vmreplay/testbed)
#   make testbed-deps   install what the build and the guest need (root)
#
# `make deps` installs the test bed's packages too, and `make check` builds
# the test bed first (tests/t_testbed.sh captures in it; a one-time build).
# `make install` puts the test bed in DATADIR/vmreplay/capture/testbed, where an
# installed `vmreplay capture --kernel` finds it.

TESTBED_KERNEL ?= 6.12
TESTBED_DEB_PKGS := flex bison bc patch xz-utils util-linux dmsetup uml-utilities
TESTBED_SCRIPTS  := build.sh run.sh guest-init.sh
TESTBED_PATCHES  := $(notdir $(wildcard capture/testbed/patches/*.patch))

.PHONY: testbed testbed-deps testbed-for-check install-testbed uninstall-testbed

# The scorer of capture/testbed/damon-session.sh: replay/ingest/damon.c's
# expansion rule itself, against an exact stream.
TESTBED_DAMON_CHECK := $(BUILD)/testbed/damon-check
all: $(TESTBED_DAMON_CHECK)
$(TESTBED_DAMON_CHECK): $(BUILD)/capture/testbed/damon_check.o $(BUILD)/replay/ingest/damon.o
	@mkdir -p $(dir $@)
	$(LINK) $^ -o $@
testbed: testbed-deps
	@capture/testbed/build.sh --kernel $(TESTBED_KERNEL) >/dev/null

testbed-deps:
	$(call apt,$(TESTBED_DEB_PKGS))

deps: testbed-deps
# Built before the tests; a build that fails does not stop the other tests
# (tests/t_testbed.sh then fails, saying why).
check check-asan: testbed-for-check
testbed-for-check: testbed-deps
	@capture/testbed/build.sh --kernel $(TESTBED_KERNEL) >/dev/null || \
	  echo "vmreplay: the test bed's kernel did not build (tests/t_testbed.sh reports it)" >&2

install: install-testbed
install-testbed:
	install -d '$(DESTDIR)$(pkgdatadir)/capture/testbed/patches'
	install -m 755 $(addprefix capture/testbed/,$(TESTBED_SCRIPTS)) '$(DESTDIR)$(pkgdatadir)/capture/testbed'
	install -m 644 capture/testbed/testbed.config '$(DESTDIR)$(pkgdatadir)/capture/testbed'
	install -m 644 $(addprefix capture/testbed/patches/,$(TESTBED_PATCHES)) \
	  '$(DESTDIR)$(pkgdatadir)/capture/testbed/patches'

uninstall: uninstall-testbed
uninstall-testbed:
	rm -f $(foreach f,$(TESTBED_SCRIPTS) testbed.config,'$(DESTDIR)$(pkgdatadir)/capture/testbed/$(f)') \
	  $(foreach f,$(TESTBED_PATCHES),'$(DESTDIR)$(pkgdatadir)/capture/testbed/patches/$(f)')
	@for d in '$(DESTDIR)$(pkgdatadir)/capture/testbed/patches' '$(DESTDIR)$(pkgdatadir)/capture/testbed' \
	  '$(DESTDIR)$(pkgdatadir)/capture'; do \
	  if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d"; fi; done

# `vmreplay capture --kernel`: the host side of a capture in the guest,
# part of build/vmreplay (an extra prerequisite: the link rule uses $^).
$(BUILD)/vmreplay: $(BUILD)/capture/capture_testbed.o
