#!/bin/sh
# herd7's logs for tests/c11/mutations/ (D224): herd's own rc11.cat, and the
# same file with one edit at a time, run on the tests of that folder, the
# corpus tests with a read-modify-write and the compare-exchange tests.
# tests/engines/user_models.rs makes the same edits to models/rc11.cat and
# compares both engines with these logs.
# Usage: scripts/c11_mutations.sh HERDTOOLS_DIR   (bin/herd7, lib/herd/rc11.cat)
set -eu
herd="$1/bin/herd7 -set-libdir $1/lib/herd -macros c11.def"
out=tests/c11/mutations
tmp=$(mktemp -d)
tests=$(ls $out/*.litmus; grep -l 'fetch_add\|exchange' tests/c11/corpus/*.litmus; ls tests/c11/cas/*.litmus)
edit() { # NAME SED-SCRIPT
    sed "$2" "$1/lib/herd/rc11.cat" >"$tmp/$3.cat"
    # shellcheck disable=SC2086
    $herd -model "$tmp/$3.cat" $tests >"$out/herd-$3.log"
}
edit "$1" '' rc11
edit "$1" '/as atomicity$/d' no-atomicity
edit "$1" '/as coherencermw$/d' no-coherencermw
edit "$1" '/as coherence1$/d' no-coherence1
edit "$1" '/as SC$/d' no-SC
edit "$1" '/as atomicity$/d; /as coherencermw$/d' no-rmw-axioms
edit "$1" 's/^let dr = .*/let dr = (cnf \& ext)/' dr-fixed
rm -r "$tmp"
