"""Golden shapes of the command line's --json outputs: the keys and value types,
recursively (a list by the union of its items' shapes), compared with
tests/tools/golden/NAME.json so that a renamed or dropped field fails the test.
Values vary by machine; shapes do not.

usage: json_shape.py GOLDEN_FILE < OUTPUT.json      (exit 1 on a mismatch)
       json_shape.py --write GOLDEN_FILE < OUTPUT.json
"""
import json
import sys


def shape(v):
    if isinstance(v, dict):
        if v and all("/" in k for k in v):  # keyed by backend ("plugin/device type"): which ones vary by machine
            merged = None
            for x in v.values():
                merged = shape(x) if merged is None else merge(merged, shape(x))
            return {"<backend>": merged}
        return {k: shape(x) for k, x in sorted(v.items())}
    if isinstance(v, list):
        items = [shape(x) for x in v]
        merged = None
        for s in items:
            merged = s if merged is None else merge(merged, s)
        return [merged] if merged is not None else []
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return "string"


def merge(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = merge(out[k], v) if k in out else v
        return dict(sorted(out.items()))
    if isinstance(a, list) and isinstance(b, list):
        return a or b
    return a if a == b else "|".join(sorted(set(str(a).split("|")) | set(str(b).split("|"))))


def main():
    write = sys.argv[1] == "--write"
    path = sys.argv[2] if write else sys.argv[1]
    got = shape(json.load(sys.stdin))
    if write:
        with open(path, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        return 0
    with open(path) as f:
        want = json.load(f)
    if got != want:
        print(f"--json shape differs from {path}:\n got: {json.dumps(got, sort_keys=True)}\nwant: "
              f"{json.dumps(want, sort_keys=True)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
