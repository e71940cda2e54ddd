"""pytest fixtures for rand86 QEMU tests: a hard time-out on every test."""
import signal

import pytest

DEFAULT_TIMEOUT = 180


def pytest_configure(config):
    config.addinivalue_line("markers", "timeout(seconds): hard limit for one test")


@pytest.fixture(autouse=True)
def hard_timeout(request):
    marker = request.node.get_closest_marker("timeout")
    seconds = marker.args[0] if marker else DEFAULT_TIMEOUT

    def expired(signum, frame):
        raise TimeoutError("test exceeded its hard time-out of %ss" % seconds)

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)
