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
