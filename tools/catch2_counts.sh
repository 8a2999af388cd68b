# parse_catch2 LOG: the test cases of a Catch2 v2 log, from its closing line, e.g.
#   All tests passed (12 assertions in 3 test cases)
#   test cases: 5 | 4 passed | 1 failed          (columns may be padded)
# Sets cases_passed/cases_failed; returns 1 if the log has no such line. Sourced by
# tools/test.sh and tools/gpu/run_bundle.sh.
parse_catch2() {
  local line
  line="$(grep -E '^(All tests passed|test cases:)' "$1" 2>/dev/null | tail -n 1)"
  if [[ $line =~ ^All\ tests\ passed.*\ in\ ([0-9]+)\ test\ case ]]; then
    cases_passed=${BASH_REMATCH[1]}; cases_failed=0
  elif [[ $line =~ ^test\ cases:\ *([0-9]+) ]]; then
    local total=${BASH_REMATCH[1]}
    cases_failed=0
    # "N failed", but not "N failed as expected" (those are [!shouldfail] passes).
    if [[ $line =~ \|\ *([0-9]+)\ failed(\ *\||\ *$) ]]; then cases_failed=${BASH_REMATCH[1]}; fi
    cases_passed=$((total - cases_failed))
  else
    return 1
  fi
}
