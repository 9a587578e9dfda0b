// tests/gitworker/lsan_suppressions_test.cpp: sanitizer builds only. The
// in-process op tests drive Debian's libgit2 1.5 through submodule paths
// that leak pcre2 match data inside libgit2; as in gitworker/main.cpp, those
// libraries' own leaks are suppressed, ours are still reported.
// Runs in: the gitworker tests.
#if defined(__SANITIZE_ADDRESS__) || defined(SIGNALTTY_SANITIZE)
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libgit2.so\nleak:libpcre2-8.so\n";
}
#endif
