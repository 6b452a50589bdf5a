# Sourced by the fake CTS binaries: prints what the CTS harness prints,
# lists subtests for --list, runs only the subtests named on the command
# line, and writes the CL_CONFORMANCE_RESULTS_FILENAME file at the end.
# TESTS holds the binary's subtest names.

SELECTED=""
RESULTS=""
FAILED=0

begin() {
    for arg in "$@"; do
        if [ "$arg" = "--list" ]; then
            for t in $TESTS; do printf '\t%s\n' "$t"; done
            exit 0
        fi
        for t in $TESTS; do
            if [ "$t" = "$arg" ]; then SELECTED="$SELECTED $t"; fi
        done
    done
    if [ -z "$SELECTED" ]; then SELECTED="$TESTS"; fi
    # The harness must point the ICD loader at the ICD it was given, and at
    # nothing else.
    if [ "$(cat "$OCL_ICD_VENDORS/ferrocl.icd" 2>/dev/null)" != "$FAKE_EXPECTED_ICD" ]; then
        echo "ERROR: OCL_ICD_VENDORS has no ferrocl.icd naming $FAKE_EXPECTED_ICD"
        exit 2
    fi
    if [ "$OCL_ICD_FILENAMES" != "$FAKE_EXPECTED_ICD" ]; then
        echo "ERROR: OCL_ICD_FILENAMES does not name $FAKE_EXPECTED_ICD alone"
        exit 2
    fi
    echo "Initializing random seed to 0."
    echo "Requesting Default device based on command line for platform index 0 and device index 0"
    if [ -n "$CL_WIMPY_MODE" ]; then echo "*** Wimpy mode enabled ***"; fi
}

is_selected() {
    for t in $SELECTED; do
        if [ "$t" = "$1" ]; then return 0; fi
    done
    return 1
}

# run_test NAME pass|fail|skip
run_test() {
    is_selected "$1" || return 0
    echo "$1..."
    case "$2" in
        pass) echo "$1 passed" ;;
        fail) echo "ERROR: $1 got 11, expected 12"; echo "$1 FAILED"; FAILED=1 ;;
        skip) echo "$1 test not supported" ;;
    esac
    RESULTS="$RESULTS $1:$2"
}

finish() {
    if [ -n "$CL_CONFORMANCE_RESULTS_FILENAME" ]; then
        {
            printf '{\n\t"cmd": "%s",\n\t"args": "",\n\t"results": {\n' "$0"
            sep=""
            for r in $RESULTS; do
                printf '%s\t\t"%s": "%s"' "$sep" "${r%%:*}" "${r#*:}"
                sep=",
"
            done
            printf '\n\t}\n}\n'
        } > "$CL_CONFORMANCE_RESULTS_FILENAME"
    fi
    exit $FAILED
}
