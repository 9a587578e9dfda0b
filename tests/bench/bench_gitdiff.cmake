# tests/bench/bench_gitdiff.cmake: `workspace.diff` on a 10,000-file
# checkout, the gitworker alone and through the real broker, next to
# `git diff --numstat` + `git status` in the same run (included by
# tests/bench/CMakeLists.txt).
if(TARGET signaltty-gitworker)
  add_test(NAME bench_gitdiff
    COMMAND ${CMAKE_CURRENT_LIST_DIR}/bench_gitdiff.sh
            $<TARGET_FILE:signaltty-gitworker> $<TARGET_FILE:signaltty-broker>
            $<TARGET_FILE:signaltty>)
  set_tests_properties(bench_gitdiff PROPERTIES LABELS bench TIMEOUT 600)
endif()
