#!/usr/bin/env bash
# scripts/check_function_length.py on a scratch git tree whose function lengths are known by
# construction: signature line + N body lines + closing brace = N + 2 lines.
#   function_length_test.sh SOURCE_DIR
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
script="$1/scripts/check_function_length.py"
tree=$WORK

# body N: N statement lines.
body() { for ((i = 0; i < $1; ++i)); do echo "  x += $i;"; done; }
{
  echo '#include <string>'
  # line 2, 1 + 57 + 1 + 1 = 60 lines (at the limit)
  echo 'int fits(int x) {'; body 57; echo '  return x;'; echo '}'
  # line 62, 61 lines
  echo 'int too_long(int x) {'; body 58; echo '  return x;'; echo '}'
  # line 124: a constructor with braced member initializers, 1 + 3 + 1 = 5 lines
  echo 'struct Box {'
  echo '  Box(int a) : a_{a}, b_(a) {'; body 3; echo '  }'
  echo '  int a_, b_;'
  echo '};'
  # line 131: a lambda counts toward its function: 1 + 1 + 60 + 1 + 1 + 1 = 65 lines
  echo 'int with_lambda(int x) {'
  echo '  auto f = [&] {'; body 60; echo '  };'
  echo '  return f(), x;'
  echo '}'
  # line 196: braces inside a string and a comment are not blocks, 1 line
  echo 'const char* braces() { return "{{{{ not a block"; }  // }}}'
  # line 197: extern "C", 1 + 70 + 1 + 1 = 73 lines
  echo 'extern "C" int c_entry(const char* d) {'; body 70; echo '  return 0;'; echo '}'
  # line 270: 1 + 119 + 1 + 1 = 122 lines, over the default limit of 120
  echo 'int huge(int x) {'; body 119; echo '  return x;'; echo '}'
} >"$tree/a.cc"
mkdir -p "$tree/tests"
{ echo 'void long_test() {'; body 100; echo '}'; } >"$tree/tests/t.cc"
git -C "$tree" init -q
git -C "$tree" add -A

expect_exit 1 -- python3 "$script" --root "$tree" --max-lines 60  # functions over the limit
out=$OUTPUT
expected="a.cc:270 huge (122 lines)
a.cc:197 c_entry (73 lines)
a.cc:131 with_lambda (65 lines)
a.cc:62 too_long (61 lines)"
got=$(grep -v '^check_function_length' <<<"$out")
[[ $got == "$expected" ]] || fail "listed
$got
expected
$expected"

# Defaults: over the 60-line guide is listed as a guide; only the 122-line function fails.
expect_exit 1 -- python3 "$script" --root "$tree"  # defaults: a 122-line function
out=$OUTPUT
expected="a.cc:270 huge (122 lines)
guide: a.cc:197 c_entry (73 lines)
guide: a.cc:131 with_lambda (65 lines)
guide: a.cc:62 too_long (61 lines)"
got=$(grep -v '^check_function_length' <<<"$out")
[[ $got == "$expected" ]] || fail "defaults listed
$got
expected
$expected"
python3 "$script" --root "$tree" --max-lines 122 >/dev/null || fail "at --max-lines 122 the tree should pass"

all=$(python3 "$script" --root "$tree" --all --max-lines 200)
grep -qx 'a.cc:2 fits (60 lines)' <<<"$all" || fail "fits is not 60 lines: $all"
grep -qx 'a.cc:124 Box (5 lines)' <<<"$all" ||
  fail "the constructor with braced initializers is not 5 lines: $all"
grep -qx 'a.cc:196 braces (1 lines)' <<<"$all" || fail "braces in literals/comments miscounted: $all"
grep -q 'long_test' <<<"$all" && fail "tests/ is scanned: $all"

expect_exit 2 -- python3 "$script" --root "$tree" --max-lines 0
expect_contains "--max-lines 0" '--max-lines 0, expected an integer >= 1' "$OUTPUT"
expect_exit 2 -- python3 "$script" --root "$tree" --guide-lines 0
expect_contains "--guide-lines 0" '--guide-lines 0, expected an integer >= 1' "$OUTPUT"
finish "function_length_test: ok"
