"""Trims a report.json into a small frozen fixture: only the named targets (all when none), the
first CELLS cells per target (they are strongest first) and the first 8 unpinned boundaries, the
project root replaced by a neutral path."""
import json, sys

src, dst, cells, root, *names = sys.argv[1:]
r = json.load(open(src))
r["project_root"] = root
if names:
    r["targets"] = [t for t in r["targets"] if t["qualified_name"] in names]
for t in r["targets"]:
    x = t.get("exploration")
    if x:
        x["cells"] = x["cells"][: int(cells)]
    m = t.get("mutation")
    if m:
        m["unpinned"] = m["unpinned"][:8]
with open(dst, "w") as f:
    json.dump(r, f, indent=1, ensure_ascii=False)
    f.write("\n")
