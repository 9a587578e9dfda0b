# tests/bench/bench_detection.cmake: the detection loop's CPU with 50 idle
# panes, rules against no rules (included by tests/bench/CMakeLists.txt).
find_package(GTest REQUIRED)
add_executable(bench_detection
  ${CMAKE_CURRENT_LIST_DIR}/bench_detection.cpp
  ${CMAKE_SOURCE_DIR}/tests/integration/harness.cpp)
target_link_libraries(bench_detection PRIVATE signaltty_common GTest::gtest Threads::Threads)
target_compile_definitions(bench_detection PRIVATE
  SIGNALTTY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  SIGNALTTY_AGENT_FIXTURES="${CMAKE_SOURCE_DIR}/tests/fixtures/agents"
  SIGNALTTY_PEER_PROBE="$<TARGET_FILE:peer_probe>")
foreach(program signaltty-broker signaltty-ptyhost)
  if(TARGET ${program})
    add_dependencies(bench_detection ${program})
  endif()
endforeach()
add_test(NAME bench_detection COMMAND bench_detection)
set_tests_properties(bench_detection PROPERTIES LABELS bench TIMEOUT 300)
