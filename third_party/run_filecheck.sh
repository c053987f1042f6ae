#!/usr/bin/env bash
# Runs the lit-style `RUN:` lines of test files (used by filecheck_test).
#
#   run_filecheck.sh [--tool NAME=PATH]... [--] FILE...
#
# For every FILE, each line of the form `// RUN: <cmd>` (also `# RUN:`,
# `; RUN:`; a trailing `\` continues the command on the next RUN: line) is run
# with bash, with `set -o pipefail`, after these substitutions:
#   NAME (a whole word, e.g. tile-opt, FileCheck) -> PATH of that tool
#   %s -> the test file, %S / %p -> its directory,
#   %t -> a per-file temporary path, %T -> the temporary directory, %% -> %
# `not CMD...` inverts CMD's exit status (`not --crash CMD` expects a signal).
# `// -----` splits are left to the tool itself (e.g. tile-opt --split-input-file).
# A file with no RUN: lines, or any failing RUN: line, fails the test.
set -u

die() { echo "run_filecheck.sh: $*" >&2; exit 2; }

# Finds a runfiles path ("pkg/x", "external/repo/x" or "../repo/x") from the
# current directory (the main repository's runfiles dir in a test).
resolve() {
  local p=$1 c
  local -a cands=("$p")
  case "$p" in
    external/*) cands+=("../${p#external/}") ;;
    ../*)       cands+=("external/${p#../}") ;;
  esac
  if [[ -n "${TEST_SRCDIR:-}" ]]; then
    case "$p" in
      external/*) cands+=("$TEST_SRCDIR/${p#external/}") ;;
      ../*)       cands+=("$TEST_SRCDIR/${p#../}") ;;
      *)          cands+=("$TEST_SRCDIR/${TEST_WORKSPACE:-}/$p") ;;
    esac
  fi
  for c in "${cands[@]}"; do
    if [[ -e "$c" ]]; then
      [[ "$c" = /* ]] && { echo "$c"; return 0; }
      echo "$PWD/$c"; return 0
    fi
  done
  return 1
}

TOOL_NAMES=()
TOOL_PATHS=()
FILES=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tool)
      [[ $# -ge 2 ]] || die "--tool needs NAME=PATH"
      spec=$2; shift 2
      [[ "$spec" == *=* ]] || die "bad --tool '$spec' (want NAME=PATH)"
      name=${spec%%=*}; path=${spec#*=}
      abs=$(resolve "$path") || die "tool '$name' not found at '$path' (cwd $PWD)"
      [[ -x "$abs" ]] || die "tool '$name' at '$abs' is not executable"
      TOOL_NAMES+=("$name"); TOOL_PATHS+=("$abs") ;;
    --tool=*)
      set -- --tool "${1#--tool=}" "${@:2}" ;;
    --) shift; FILES+=("$@"); break ;;
    -*) die "unknown option '$1'" ;;
    *) FILES+=("$1"); shift ;;
  esac
done
[[ ${#FILES[@]} -gt 0 ]] || die "no test files given"
command -v perl >/dev/null || die "perl is needed for RUN-line substitution"

TMP_ROOT=${TEST_TMPDIR:-$(mktemp -d)}

# Shell code run before every RUN line.
read -r -d '' PRELUDE <<'PRELUDE_EOF'
not() {
  local crash=0 rc
  if [[ "${1:-}" == "--crash" ]]; then crash=1; shift; fi
  "$@"; rc=$?
  if [[ $crash == 1 ]]; then
    [[ $rc -ge 128 ]] || { echo "not --crash: '$1' exited with $rc, expected a crash" >&2; return 1; }
    return 0
  fi
  [[ $rc -ne 0 ]] || { echo "not: '$1' succeeded, expected failure" >&2; return 1; }
  return 0
}
set -o pipefail
PRELUDE_EOF

# substitute CMD FILE TMPBASE -> prints CMD with tool names and %-vars replaced.
substitute() {
  local cmd=$1 file=$2 tmp=$3 i
  local args=()
  for i in "${!TOOL_NAMES[@]}"; do
    args+=("${TOOL_NAMES[$i]}" "${TOOL_PATHS[$i]}")
  done
  SUBST_FILE=$file SUBST_DIR=$(dirname "$file") SUBST_TMP=$tmp \
  SUBST_TMPDIR=$(dirname "$tmp") perl -e '
    my $cmd = shift @ARGV;
    my %tools = @ARGV;
    # Longest names first, so that e.g. "tile-opt" wins over "tile".
    for my $n (sort { length($b) <=> length($a) } keys %tools) {
      my $p = $tools{$n};
      # Whole words only: not inside a path, a flag or another name.
      $cmd =~ s{(?<![\w./=-])\Q$n\E(?![\w./=-])}{$p}g;
    }
    my %v = ("s" => $ENV{SUBST_FILE}, "S" => $ENV{SUBST_DIR},
             "p" => $ENV{SUBST_DIR}, "t" => $ENV{SUBST_TMP},
             "T" => $ENV{SUBST_TMPDIR}, "%" => "%");
    $cmd =~ s{%([sSptT%])}{$v{$1}}g;
    print $cmd;
  ' "$cmd" "${args[@]}"
}

failed=()
for f in "${FILES[@]}"; do
  file=$(resolve "$f") || { echo "FAIL: test file '$f' not found" >&2; failed+=("$f"); continue; }
  base=$(basename "$file")
  tmp="$TMP_ROOT/${base}.tmp"
  echo "==== $f"

  # Collect RUN lines (joining `\` continuations), with their line numbers.
  runs=(); lines=(); cur=""; start=0; n=0
  while IFS= read -r line || [[ -n "$line" ]]; do
    n=$((n + 1))
    if [[ "$line" =~ ^[[:space:]]*(//|#|\;)[[:space:]]*RUN:[[:space:]]?(.*)$ ]]; then
      part=${BASH_REMATCH[2]}
      [[ -z "$cur" ]] && start=$n
      if [[ "$part" =~ ^(.*)\\[[:space:]]*$ ]]; then
        cur+="${BASH_REMATCH[1]} "
      else
        cur+="$part"
        runs+=("$cur"); lines+=("$start"); cur=""
      fi
    fi
  done < "$file"
  [[ -n "$cur" ]] && { runs+=("$cur"); lines+=("$start"); }

  if [[ ${#runs[@]} -eq 0 ]]; then
    echo "FAIL: $f has no '// RUN:' lines" >&2
    failed+=("$f"); continue
  fi

  for i in "${!runs[@]}"; do
    cmd=$(substitute "${runs[$i]}" "$file" "$tmp")
    echo "---- $f:${lines[$i]}: RUN: ${runs[$i]}"
    echo "     \$ ${cmd//"$PWD/"/}"   # shown relative to $PWD (runfiles dir)
    bash -c "$PRELUDE"$'\n'"$cmd"
    rc=$?
    if [[ $rc -ne 0 ]]; then
      {
        echo
        echo "FAIL: $f:${lines[$i]}: RUN line exited with status $rc"
        echo "  RUN: ${runs[$i]}"
        echo "  ran: $cmd"
        echo "  (in $PWD)"
      } >&2
      failed+=("$f:${lines[$i]}")
      break
    fi
  done
done

if [[ ${#failed[@]} -gt 0 ]]; then
  echo >&2
  echo "FAILED (${#failed[@]}): ${failed[*]}" >&2
  exit 1
fi
echo "PASSED: ${#FILES[@]} file(s)"
