"""pytest fixtures for rand86 QEMU tests: a hard time-out on every test,
and the longest tests first (by that time-out), so that with pytest-xdist
no core is left with a long test when the others have run out."""
import signal

import pytest

DEFAULT_TIMEOUT = 180


def pytest_configure(config):
    config.addinivalue_line("markers", "timeout(seconds): hard limit for one test")


def timeout_of(item, default=DEFAULT_TIMEOUT):
    marker = item.get_closest_marker("timeout")
    return marker.args[0] if marker else default


def pytest_collection_modifyitems(session, config, items):
    # a stable sort, the same order in every worker as xdist requires;
    # a test without a marker is a short one
    items.sort(key=lambda item: timeout_of(item, 0), reverse=True)


@pytest.fixture(autouse=True)
def hard_timeout(request):
    seconds = timeout_of(request.node)

    def expired(signum, frame):
        raise TimeoutError("test exceeded its hard time-out of %ss" % seconds)

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
