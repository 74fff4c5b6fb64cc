#!/usr/bin/env bash
# Assembles the man pages into OUT: one per subcommand from the command line's
# own help (swift-argument-parser's generate-manual output, GENERATED), with
# the FILES/ENVIRONMENT and EXAMPLES/SEE ALSO sections of docs/man added, and
# gestured.toml(5) and gestured.actions(5), written by hand. @DOCDIR@ and @DATADIR@ become the
# installed paths. Usage: man-pages.sh GENERATED OUT DOCDIR DATADIR
set -euo pipefail
cd "$(dirname "$0")/.."
generated=$1 out=$2 docdir=$3 datadir=$4
# An empty line in a generated page (a paragraph break in the help) is a new paragraph.
subst() { sed -e "s|@DOCDIR@|$docdir|g" -e "s|@DATADIR@|$datadir|g" -e "s|^$|.Pp|" "$@"; }
rm -rf "$out" && mkdir -p "$out"
for page in "$generated"/*.1; do
    name=$(basename "$page" .1)
    # `gestured help` is not a command of its own worth a page.
    [ "$name" = gestured.help ] && continue
    files=docs/man/$name.files examples=docs/man/$name.examples
    awk -v files="$files" -v examples="$examples" '
        function include(f,   line) { while ((getline line < f) > 0) print line; close(f) }
        /^\.Xr gestured\.help 1/ { next }
        # NAME names the page as man and whatis look it up (gestured.act,
        # gestured.stroke.record);
        # the synopsis shows the command as it is typed (gestured act).
        /^\.Sh NAME/ { section = "name" } /^\.Sh SYNOPSIS/ { section = "synopsis" }
        section == "name" && /^\.Nm "gestured [a-z -]+"$/ { command = $0; sub(/^\.Nm "/, "", command); sub(/"$/, "", command); n = command; gsub(/ /, ".", n); print ".Nm " n; next }
        section == "synopsis" && command != "" && /^\.Nm$/ { print ".Nm " command; next }
        /^\.Sh "EXIT STATUS"/ { include(files) }
        # EXAMPLES go before SEE ALSO (gestured(1) has one) or else before AUTHORS.
        /^\.Sh ("SEE ALSO"|AUTHORS)/ && !done { include(examples); done = 1 }
        { print }
    ' "$page" | subst >"$out/$name.1"
done
# The top page's SEE ALSO ends with the subcommands; add the configuration page.
sed -i 's|^\.Xr gestured\.tune 1$|.Xr gestured.tune 1 ,\n.Xr gestured.actions 5 ,\n.Xr gestured.toml 5|' "$out/gestured.1"
for page in gestured.toml.5 gestured.actions.5; do subst "docs/man/$page" >"$out/$page"; done
