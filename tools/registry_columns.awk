# registry_columns.awk: the named columns of the exercise registry (build/<preset>/workbook_exercises.tsv),
# found by the header row's names, never by position.
#   awk -v columns="id name stub" -f tools/registry_columns.awk <registry>
# prints, for each exercise row, those columns in that order, separated by the unit separator \037: no
# white space, so `IFS=$'\037' read -r id name stub` keeps empty columns apart (a tab would merge them).
# -v sep=' ' (any string) separates them otherwise. Exit 2, with a line on stderr, when the header lacks
# a column.
BEGIN {
  FS = "\t"
  if (sep == "") sep = "\037"
  wanted = split(columns, want, " ")
}
NR == 1 {
  for (i = 1; i <= NF; i++) at[$i] = i
  for (j = 1; j <= wanted; j++)
    if (!(want[j] in at)) {
      printf "registry_columns: %s has no column '%s' (reconfigure the build)\n", FILENAME, want[j] > "/dev/stderr"
      exit 2
    }
  next
}
$0 == "" { next }
{
  line = $(at[want[1]])
  for (j = 2; j <= wanted; j++) line = line sep $(at[want[j]])
  print line
}
