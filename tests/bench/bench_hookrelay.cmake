# tests/bench/bench_hookrelay.cmake: whole-process time of
# signaltty-hookrelay (broker down, and a live stand-in broker) next to
# /bin/true (included by tests/bench/CMakeLists.txt).
add_executable(bench_fake_broker ${CMAKE_CURRENT_LIST_DIR}/bench_fake_broker.cpp)
target_link_libraries(bench_fake_broker PRIVATE signaltty_common)
add_dependencies(bench_fake_broker signaltty-hookrelay)
add_test(NAME bench_hookrelay
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/bench_hookrelay.sh
          $<TARGET_FILE:signaltty-hookrelay> $<TARGET_FILE:bench_fake_broker>)
set_tests_properties(bench_hookrelay PROPERTIES LABELS bench TIMEOUT 300)

# The same relay with the real broker and a pane: process time next to
# /bin/true, and the round trip to the agent.* event on a subscriber.
find_package(GTest REQUIRED)
add_executable(bench_hook_roundtrip
  ${CMAKE_CURRENT_LIST_DIR}/bench_hook_roundtrip.cpp
  ${CMAKE_SOURCE_DIR}/tests/integration/harness.cpp)
target_link_libraries(bench_hook_roundtrip PRIVATE signaltty_common GTest::gtest Threads::Threads)
target_compile_definitions(bench_hook_roundtrip PRIVATE
  SIGNALTTY_BIN_DIR="${CMAKE_RUNTIME_OUTPUT_DIRECTORY}"
  SIGNALTTY_PEER_PROBE="$<TARGET_FILE:peer_probe>")
foreach(program signaltty-broker signaltty-ptyhost signaltty-hookrelay)
  if(TARGET ${program})
    add_dependencies(bench_hook_roundtrip ${program})
  endif()
endforeach()
add_test(NAME bench_hook_roundtrip COMMAND bench_hook_roundtrip)
set_tests_properties(bench_hook_roundtrip PROPERTIES LABELS bench TIMEOUT 600)
