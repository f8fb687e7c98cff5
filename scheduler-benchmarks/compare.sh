#!/usr/bin/env bash
# Compares two builds of the benchmarks jar scenario by scenario, interleaved round by round.
#
#   scheduler-benchmarks/compare.sh [options] BEFORE.jar AFTER.jar
#   scheduler-benchmarks/compare.sh build COMMIT OUT.jar
#
# The first form runs every chosen scenario once per round for each build, the builds' order
# alternating from round to round and the peers' order rotated by one each round, then prints per
# scenario the median [min-max] of every figure for each build and the ratio after / before. Each
# scenario's own ratio columns (x stpe, x stpe-roc, p99 / floor p99) are the ratios to the peers of
# the same run. The second form builds the benchmarks jar of COMMIT in a temporary git worktree
# (the working tree is left alone) and copies it to OUT.jar.
#
# Options:
#   -r N        rounds (default 3; all scenarios take about 10 minutes a round for both builds, 2 cores)
#   -s LIST     scenarios, comma-separated (default all):
#               insert, churn, lateness, burst, mem, idle, oneshot
#   -p LIST     peers for every scenario (default lf,stpe,stpe-roc; LATENESS adds the floor itself)
#   -j JAVA     the java command (default: java on the PATH; a JDK 25 adds fjp when named in -p)
#   -o DIR      where the raw output of each run goes (default: a new directory under /tmp)
#   -n A,B      names of the two builds in the table (default before,after)
# Sizes per scenario can be changed through the environment, e.g. INSERT_OPTS="-wi 3 -i 5",
# CHURN_OPTS="-wi 2 -i 3 -w 1s -r 1s", LATENESS_PROPS="-Dbench.tasks=60000 -Dbench.spanMs=3000",
# ONESHOT_PROPS="-Dbench.oneShotOps=1000000"; JAVA_OPTS is given to every java command
# (JAVA_OPTS=-Djmh.ignoreLock=true when another JMH run holds its lock file).
set -euo pipefail

usage() {
    sed -n '2,/^set /p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'
    exit 2
}

if [[ "${1:-}" == "build" ]]; then
    [[ $# -eq 3 ]] || usage
    commit=$2
    out=$(realpath -m "$3")
    repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
    tree=$(mktemp -d /tmp/bench-build-XXXXXX)
    rmdir "$tree"
    git -C "$repo" worktree add --detach "$tree" "$commit" >/dev/null
    trap 'git -C "$repo" worktree remove --force "$tree"' EXIT
    (cd "$tree" && ./mvnw -B -q -o package -pl scheduler-benchmarks -am -DskipTests)
    cp "$tree/scheduler-benchmarks/target/benchmarks.jar" "$out"
    echo "built $(git -C "$repo" rev-parse --short "$commit") into $out"
    exit 0
fi

rounds=3
scenarios=insert,churn,lateness,burst,mem,idle,oneshot
peers=lf,stpe,stpe-roc
java=java
dir=
names=before,after
while getopts "r:s:p:j:o:n:h" opt; do
    case $opt in
        r) rounds=$OPTARG ;;
        s) scenarios=$OPTARG ;;
        p) peers=$OPTARG ;;
        j) java=$OPTARG ;;
        o) dir=$OPTARG ;;
        n) names=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[[ $# -eq 2 ]] || usage
jars=("$(realpath "$1")" "$(realpath "$2")")
IFS=, read -r -a builds <<<"$names"
[[ ${#builds[@]} -eq 2 ]] || { echo "-n takes two names, e.g. before,after" >&2; exit 2; }
for jar in "${jars[@]}"; do
    [[ -f $jar ]] || { echo "no such jar: $jar" >&2; exit 2; }
done
[[ -n $dir ]] || dir=$(mktemp -d /tmp/bench-compare-XXXXXX)
mkdir -p "$dir"

: "${INSERT_OPTS:=-wi 2 -i 3}"
: "${CHURN_OPTS:=-wi 2 -i 3 -w 1s -r 1s}"
: "${LATENESS_PROPS:=}"
: "${ONESHOT_PROPS:=}"
: "${JAVA_OPTS:=}"

# The peer list rotated left by N places.
rotate() {
    local -a list
    IFS=, read -r -a list <<<"$1"
    local n=$(($2 % ${#list[@]}))
    local rotated=("${list[@]:n}" "${list[@]:0:n}")
    (IFS=,; echo "${rotated[*]}")
}

# One scenario, one round, one jar: the scenario's own command at one round (or one fork per peer).
run() {
    local scenario=$1 jar=$2 order=$3
    # shellcheck disable=SC2086
    case $scenario in
        insert) $java $JAVA_OPTS -cp "$jar" io.timedjobs.benchmarks.Compare Insert -f 1 $INSERT_OPTS -p peer="$order" ;;
        churn) $java $JAVA_OPTS -cp "$jar" io.timedjobs.benchmarks.Compare Churn -f 1 $CHURN_OPTS -p peer="$order" ;;
        lateness) $java $JAVA_OPTS $LATENESS_PROPS -cp "$jar" io.timedjobs.benchmarks.Lateness 1 "floor,$order" ;;
        burst) $java $JAVA_OPTS -cp "$jar" io.timedjobs.benchmarks.Burst 1 "$order" ;;
        mem) $java $JAVA_OPTS -cp "$jar" io.timedjobs.benchmarks.Memory 1 "$order" ;;
        idle) $java $JAVA_OPTS -cp "$jar" io.timedjobs.benchmarks.Idle 1 "$order" ;;
        oneshot) $java $JAVA_OPTS $ONESHOT_PROPS -cp "$jar" io.timedjobs.benchmarks.OneShot 1 "$order" both ;;
        *) echo "unknown scenario $scenario" >&2; exit 2 ;;
    esac
}

echo "# compare: ${builds[0]}=${jars[0]} ${builds[1]}=${jars[1]}, $rounds rounds, scenarios $scenarios, peers $peers"
echo "# java: $($java -version 2>&1 | head -1); raw output in $dir"
IFS=, read -r -a chosen <<<"$scenarios"
start=$SECONDS
for ((round = 1; round <= rounds; round++)); do
    order=$(rotate "$peers" $((round - 1)))
    for scenario in "${chosen[@]}"; do
        # Alternate which build goes first, so that neither always runs on the cooler machine.
        if ((round % 2 == 1)); then sequence=(0 1); else sequence=(1 0); fi
        for b in "${sequence[@]}"; do
            file="$dir/r$round-${builds[b]}-$scenario.txt"
            began=$SECONDS
            if ! run "$scenario" "${jars[b]}" "$order" >"$file" 2>&1; then
                echo "round $round $scenario ${builds[b]}: failed, see $file" >&2
                mv "$file" "$file.failed"
                continue
            fi
            echo "round $round/$rounds $scenario ${builds[b]} ($order): $((SECONDS - began)) s, total $((SECONDS - start)) s"
        done
    done
done
# The summary needs BuildCompare: from the after jar, else the before jar.
$java -cp "${jars[1]}:${jars[0]}" io.timedjobs.benchmarks.BuildCompare "$dir" "${builds[0]}" "${builds[1]}" | tee "$dir/summary.md"
