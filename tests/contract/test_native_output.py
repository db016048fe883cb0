"""The stdout guard in a process of its own, with fd 1 a pipe read as bytes:
each native dependency, imported and constructed inside ``native_output()``,
writes nothing to fd 1 (HiGHS 1.16 wrote its banner there on construction);
after ``reserve_stdout()`` fd 1 stays clean in threads, forked children and
subprocesses while ``print`` still reaches the real stdout."""

import os
import subprocess
import sys
import textwrap

# C-level output, as a native library writes it: printf to fd 1, then its buffer flushed.
_NATIVE_WRITE = textwrap.dedent("""
    import ctypes
    libc = ctypes.CDLL(None)
    def native_write(text):
        libc.printf(text.encode() + b"\\n")
        libc.fflush(None)
""")


def _python(code: str) -> tuple[bytes, str]:
    """Run ``code`` in a fresh interpreter: its stdout bytes and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TILESAT_")}
    proc = subprocess.run([sys.executable, "-c", _NATIVE_WRITE + textwrap.dedent(code)], capture_output=True,
                          stdin=subprocess.DEVNULL, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    return proc.stdout, proc.stderr.decode(errors="replace")


def test_the_check_sees_native_output_where_nothing_guards_it():
    """The control: without the guard a C library's printf does reach fd 1."""
    out, _ = _python("native_write('native text'); print('python text')")
    assert out == b"native text\npython text\n"


def test_each_native_dependency_inside_native_output_leaves_fd_1_untouched():
    out, err = _python("""
        import sys
        from tilesat import native_output
        print("before", flush=True)
        with native_output():
            native_write("the guard's own check")
            import highspy
            h = highspy.Highs()  # HiGHS 1.16 prints its banner here, before output_flag can be set
            h.setOptionValue("output_flag", False)
            import pyganak
            counter = pyganak.Counter(seed=1)
            counter.add_clauses([[1, 2, 3]])
            counter.set_sampling_set([1, 2, 3])
            assert int(counter.count()) == 7
            import pyapproxmc
            approx = pyapproxmc.Counter(seed=1, epsilon=0.8, delta=0.2)
            approx.add_clauses([[1, 2, 3]])
            cells, hashes = approx.count([1, 2, 3])
            assert cells * 2 ** hashes == 7
            from pysat.solvers import Solver
            with Solver("cadical195", bootstrap_with=[[1, 2], [-1]]) as s:
                assert s.solve() and s.get_model() == [-1, 2]
            import xcover  # numba loads (or compiles) it here
            assert len(list(xcover.covers([[0], [1], [0, 1]], primary=[0, 1]))) == 2
        print("after", flush=True)
        native_write("unguarded again")
    """)
    assert out == b"before\nafter\nunguarded again\n", (out, err)


def test_native_output_nests_and_restores_fd_1():
    out, _ = _python("""
        from tilesat import native_output
        with native_output():
            with native_output():
                native_write("inner")
            native_write("outer")
        native_write("free")
    """)
    assert out == b"free\n"


def test_reserved_stdout_stays_clean_across_threads_forks_and_subprocesses():
    out, err = _python("""
        import os, subprocess, sys, threading
        from tilesat import reserve_stdout
        reserve_stdout()
        print("document starts", flush=True)

        def chatter(i):
            for _ in range(50):
                native_write(f"thread {i} native")
                os.write(1, b"thread raw fd 1\\n")

        threads = [threading.Thread(target=chatter, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        print("document middle", flush=True)
        for t in threads:
            t.join()
        pid = os.fork()
        if pid == 0:  # a forked child: fd 1 is the sink, its sys.stdout the document still
            native_write("child native")
            print("child document", flush=True)
            os._exit(0)
        assert os.waitpid(pid, 0)[1] == 0
        subprocess.run(["echo", "a subprocess"], check=True)  # inherits fd 1: the sink
        native_write("parent native")
        print("document ends", flush=True)
    """)
    assert out == b"document starts\ndocument middle\nchild document\ndocument ends\n", (out, err)
