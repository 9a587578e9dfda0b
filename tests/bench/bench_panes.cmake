# tests/bench/bench_panes.cmake: pane throughput, memory, echo latency and
# restart-to-ready of the real broker and ptyhosts, side by side with a
# private tmux server (included by tests/bench/CMakeLists.txt).
find_package(GTest REQUIRED)
add_executable(bench_panes
  ${CMAKE_CURRENT_LIST_DIR}/bench_panes.cpp
  ${CMAKE_SOURCE_DIR}/tests/integration/harness.cpp)
# The harness declares its gtest fixture next to the helpers used here.
target_link_libraries(bench_panes PRIVATE signaltty_common GTest::gtest Threads::Threads)
target_compile_definitions(bench_panes PRIVATE
  SIGNALTTY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  SIGNALTTY_PEER_PROBE="$<TARGET_FILE:peer_probe>")
foreach(program signaltty-broker signaltty-ptyhost)
  if(TARGET ${program})
    add_dependencies(bench_panes ${program})
  endif()
endforeach()
add_test(NAME bench_panes COMMAND bench_panes)
set_tests_properties(bench_panes PROPERTIES LABELS bench TIMEOUT 900)
