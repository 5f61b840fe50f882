#!/usr/bin/env python3
"""Cross-checks protolapse against `buf breaking` over a whole tag history.

For every adjacent pair of tags (semver order, tags on the same commit counted once) it runs
`buf breaking NEW --against OLD` and `protolapse diff REPO OLD NEW`, and sets each buf finding
beside protolapse's change on the same element. Each finding is one of:

  matched        a change on the same element whose rule is the buf rule's counterpart (its
                 rule page names the buf rule) and whose verdict also flags it: a data verdict
                 (wire or JSON not safe) for a buf rule in the WIRE or WIRE_JSON category, any
                 verdict (source breaking included) for a FILE-only rule;
  more precise   a change on the same element that reports it differently: a pairing buf does
                 not make (a rename, a renumbering, a reuse), or a data verdict of safe where
                 buf's category says data breaks; the rule page that says why is cited;
  other rule     no related change, but another change on the element flags it in buf's
                 dimension (e.g. a field's type changed from a message to a scalar, which buf
                 also reports as a presence change; or buf's deleted map entry message
                 `Msg.LabelsEntry`, which protolapse reports as the change of the map field
                 `Msg.labels` or the removal of `Msg`); the rule is named, each one listed;
  missed         nothing on the element flags it.

buf is the npm package @bufbuild/buf, pinned to BUF_VERSION below and installed with
`npm install --prefix` into ${XDG_CACHE_HOME:-~/.cache}/protolapse-xcheck/buf-VERSION (or
give BUF=/path/to/buf). It runs with a v2 configuration whose breaking rules are the FILE and
WIRE_JSON categories (the broadest set: FILE holds every generated-code rule, WIRE_JSON the
data rules with their own names), written into an exported copy of each tag, and with
--exclude-imports (the module's own files, as protolapse compares them). Each tag's own
buf.yaml / buf.work.yaml gives the module layout (roots, module paths, excludes); its breaking
section (use, except, ignore) is replaced. BSR dependencies cannot be fetched offline: they are
dropped, and so are the excludes of a module that had dependencies, since those excluded
folders are then the local copies of them (temporal's google/).

The input repository is never written: it is cloned into a temporary folder, trees are exported
with `git archive`, and everything is deleted at the end.

Usage: scripts/buf-xcheck.py REPO [--last N] [--tags GLOB] [--details FILE] > report.md
  REPO        a git repository, bare mirror or bundle
  --last N    only the last N pairs
  --tags GLOB only tags matching GLOB (fnmatch), e.g. 'v*'
  --details   write every finding with its class as JSON lines to FILE
Environment: PROTOLAPSE (default: target/release/protolapse), BUF (skip the install).
"""
import argparse, fnmatch, json, os, re, shutil, signal, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xcheck_match import classify  # noqa: E402

BUF_VERSION = "1.75.0"
CATEGORIES = ["FILE", "WIRE_JSON"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOLAPSE = os.environ.get("PROTOLAPSE", os.path.join(ROOT, "target/release/protolapse"))
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null",
               GIT_TERMINAL_PROMPT="0")

EXTRA_RELATED = {"FIELD_REMOVED_RESERVED": {"FIELD_NO_DELETE_UNLESS_NAME_RESERVED"},
                 "ENUM_VALUE_REMOVED_RESERVED": {"ENUM_VALUE_NO_DELETE_UNLESS_NAME_RESERVED"}}


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def buf_binary():
    if os.environ.get("BUF"):
        return os.environ["BUF"]
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "protolapse-xcheck", "buf-" + BUF_VERSION)
    buf = os.path.join(cache, "node_modules", ".bin", "buf")
    if not os.path.exists(buf):
        os.makedirs(cache, exist_ok=True)
        r = run(["npm", "install", "--prefix", cache, "--no-audit", "--no-fund", "--save-exact",
                 "@bufbuild/buf@" + BUF_VERSION], cwd=cache)
        if r.returncode != 0 or not os.path.exists(buf):
            sys.exit("npm install of @bufbuild/buf@%s failed:\n%s" % (BUF_VERSION, r.stderr))
    version = run([buf, "--version"]).stdout.strip()
    if version != BUF_VERSION and not os.environ.get("BUF"):
        sys.exit("expected buf %s, found %s" % (BUF_VERSION, version))
    return buf


# ---------------------------------------------------------------- tags and trees

SEMVER = re.compile(r"^(?:.*/)?v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+.*)?$")


def semver_key(tag):
    m = SEMVER.match(tag)
    if not m:
        return None
    pre = m.group(4)
    # a release sorts after its pre-releases; pre-release fields compare numerically when they can
    pre_key = (1,) if pre is None else (0,) + tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (int(m.group(1)), int(m.group(2) or 0), int(m.group(3) or 0), pre_key)


def tags_in_order(clone, glob):
    out = run(["git", "-C", clone, "for-each-ref", "--format=%(refname:short) %(objectname) %(*objectname)",
               "refs/tags"], env=GIT_ENV).stdout.split("\n")
    seen, tags = {}, []
    for line in out:
        parts = line.split()
        if not parts:
            continue
        name, commit = parts[0], parts[-1]
        if glob and not fnmatch.fnmatch(name, glob):
            continue
        key = semver_key(name)
        if key is None:
            continue
        tags.append((key, name, commit))
    tags.sort()
    ordered = []
    for key, name, commit in tags:
        if commit in seen:  # e.g. istio's `1.30.0` and `v1.30.0`: one version
            continue
        seen[commit] = name
        ordered.append(name)
    return ordered


def export(clone, tag, dest):
    os.makedirs(dest)
    archive = subprocess.Popen(["git", "-C", clone, "archive", tag], stdout=subprocess.PIPE, env=GIT_ENV)
    subprocess.run(["tar", "-x", "-C", dest], stdin=archive.stdout, check=True)
    archive.wait()


def load_yaml(path):
    if not os.path.exists(path):
        return {}
    try:
        import yaml  # PyYAML (Debian: python3-yaml); buf.yaml files are YAML
    except ImportError:
        sys.exit("reading %s needs PyYAML (pip install pyyaml, or apt install python3-yaml)" % path)
    try:
        with open(path) as f:
            return yaml.safe_load(f) or {}
    except (OSError, yaml.YAMLError):
        return {}


def configure(tree):
    """Writes a v2 buf.yaml with our breaking categories and the tag's own module layout.
    Returns a short note on what was kept or dropped."""
    notes = []
    modules, dropped_deps = [], False
    work = load_yaml(os.path.join(tree, "buf.work.yaml"))
    root_cfg = load_yaml(os.path.join(tree, "buf.yaml"))

    def v1_module(path, cfg):
        nonlocal dropped_deps
        build = cfg.get("build") or {}
        roots = build.get("roots") or ["."]  # v1beta1 has roots, v1 one root
        excludes = build.get("excludes") or []
        if cfg.get("deps"):
            dropped_deps = True
            excludes = []
        for r in roots:
            mod = {"path": os.path.normpath(os.path.join(path, r))}
            ex = [os.path.normpath(os.path.join(path, e)) for e in excludes]
            ex = [e for e in ex if e.startswith(mod["path"] + "/") or mod["path"] == "."]
            if ex:
                mod["excludes"] = ex
            modules.append(mod)

    if work.get("directories"):
        notes.append("buf.work.yaml")
        for d in work["directories"]:
            cfg = load_yaml(os.path.join(tree, d, "buf.yaml"))
            if os.path.exists(os.path.join(tree, d, "buf.yaml")):
                os.remove(os.path.join(tree, d, "buf.yaml"))
            if os.path.exists(os.path.join(tree, d, "buf.lock")):
                os.remove(os.path.join(tree, d, "buf.lock"))
            v1_module(d, cfg)
    elif str(root_cfg.get("version", "")) == "v2":
        notes.append("buf.yaml v2")
        if root_cfg.get("deps"):
            dropped_deps = True
        for m in root_cfg.get("modules") or [{"path": "."}]:
            mod = {"path": m.get("path", ".")}
            if m.get("excludes") and not root_cfg.get("deps"):
                mod["excludes"] = m["excludes"]
            modules.append(mod)
    elif root_cfg:
        notes.append("buf.yaml " + str(root_cfg.get("version", "v1beta1")))
        v1_module(".", root_cfg)
    else:
        modules.append({"path": "."})
    if dropped_deps:
        notes.append("BSR deps dropped, their excludes too")
    for f in ("buf.yaml", "buf.lock", "buf.work.yaml"):
        if os.path.exists(os.path.join(tree, f)):
            os.remove(os.path.join(tree, f))
    config = {"version": "v2", "modules": modules, "breaking": {"use": CATEGORIES}}
    with open(os.path.join(tree, "buf.yaml"), "w") as f:
        json.dump(config, f)  # JSON is YAML
    return ", ".join(notes) or "no buf.yaml"


# ---------------------------------------------------------------- buf and protolapse

def buf_findings(buf, workdir, old, new):
    # --exclude-imports: compare the module's own files, as protolapse does; without it buf also
    # reports files that are only imported (istio/api's excluded common-protos/) once nothing
    # imports them any more, as deleted files
    r = run([buf, "breaking", new, "--against", old, "--exclude-imports", "--error-format", "json"],
            cwd=workdir)
    findings = []
    for line in r.stdout.splitlines():
        try:
            f = json.loads(line)
        except ValueError:
            continue
        path = f.get("path", "")
        for prefix in (new + "/", old + "/"):
            if path.startswith(prefix):
                path = path[len(prefix):]
        f["path"] = path
        findings.append(f)
    compile_errors = [f for f in findings if f.get("type") == "COMPILE"]
    if compile_errors:  # buf could not build one side: nothing to compare
        f = compile_errors[0]
        return None, "%d compile errors, first: %s: %s" % (len(compile_errors), f["path"], f.get("message"))
    if r.returncode not in (0, 100):
        err = (r.stderr.strip() or r.stdout.strip()).splitlines()
        return None, " ".join(err[:3])[:300]
    return findings, None


def protolapse_changes(clone, old, new, glob):
    args = [PROTOLAPSE, "diff", clone, old, new, "--format", "json"]
    if glob:
        args[2:2] = ["--tags", glob]
    r = run(args)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[0]
    return json.loads(r.stdout)["changes"], None


def rule_pages(buf_rules):
    """protolapse rule -> the buf rules its page's `## buf breaking` section names, and the buf
    rules its fixture pair triggers in the fixture table of docs/buf-comparison.md."""
    related = {}
    doc = os.path.join(ROOT, "docs", "buf-comparison.md")
    for line in (open(doc).read().split("\n## ", 1)[0] if os.path.exists(doc) else "").splitlines():
        cells = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(cells) == 6 and re.fullmatch(r"[A-Z][A-Z0-9_]+", cells[0]):
            related.setdefault(cells[0], set()).update(
                t for col in cells[1:4] for t in re.findall(r"[A-Z][A-Z0-9_]+", col) if t in buf_rules)
    for line in run([PROTOLAPSE, "explain", "--list"]).stdout.splitlines():
        if not line.strip():
            continue
        rule = line.split()[0]
        page = run([PROTOLAPSE, "explain", rule]).stdout
        section = page.split("## buf breaking", 1)[-1].split("\n## ", 1)[0] if "## buf breaking" in page else ""
        related.setdefault(rule, set()).update(t for t in re.findall(r"[A-Z][A-Z0-9_]+", section) if t in buf_rules)
        # FILE_OPTION_CHANGED's page: "buf has one rule per option (FILE_SAME_GO_PACKAGE, ...)"
        if rule == "FILE_OPTION_CHANGED":
            related[rule] |= {b for b in buf_rules if b.startswith("FILE_SAME_")
                              and b not in ("FILE_SAME_PACKAGE", "FILE_SAME_SYNTAX")}
    for rule, extra in EXTRA_RELATED.items():
        related.setdefault(rule, set()).update(extra)
    return related


# ---------------------------------------------------------------- matching

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--last", type=int)
    ap.add_argument("--tags")
    ap.add_argument("--details")
    a = ap.parse_args()
    buf = buf_binary()
    rules_out = run([buf, "config", "ls-breaking-rules", "--version", "v2", "--format", "json"]).stdout
    buf_rules = {}
    for line in rules_out.splitlines():
        r = json.loads(line)
        buf_rules[r["id"]] = r.get("categories") or []
    data_rules = {r for r, cats in buf_rules.items() if "WIRE" in cats or "WIRE_JSON" in cats}
    related = rule_pages(set(buf_rules))

    tmp = tempfile.mkdtemp(prefix="protolapse-xcheck-")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))  # still remove tmp
    try:
        clone = os.path.join(tmp, "clone")
        r = run(["git", "clone", "--quiet", "--bare", a.repo, clone], env=GIT_ENV)
        if r.returncode != 0:
            sys.exit("git clone failed: " + r.stderr)
        tags = tags_in_order(clone, a.tags)
        pairs = list(zip(tags, tags[1:]))
        if a.last:
            pairs = pairs[-a.last:]
        trees, layout = os.path.join(tmp, "trees"), {}
        os.makedirs(trees)
        dirs = {}
        for t in sorted({t for p in pairs for t in p}, key=lambda t: tags.index(t)):
            dirs[t] = "t%03d" % tags.index(t)
            export(clone, t, os.path.join(trees, dirs[t]))
            layout[t] = configure(os.path.join(trees, dirs[t]))
        rows, errors, details = {}, [], []
        for old, new in pairs:
            print("%s -> %s" % (old, new), file=sys.stderr)
            findings, err = buf_findings(buf, trees, dirs[old], dirs[new])
            if err:
                errors.append((old, new, "buf: " + err))
                continue
            changes, err = protolapse_changes(clone, old, new, a.tags)
            if err:
                errors.append((old, new, "protolapse: " + err))
                continue
            for f in findings:
                cls, c, q = classify(f, changes, related, data_rules)
                row = rows.setdefault(f["type"], {"findings": 0, "matched": 0, "precise": 0, "other": 0,
                                                  "missed": 0, "pages": set(), "others": set(),
                                                  "missed_list": []})
                row["findings"] += 1
                row[cls] += 1
                if cls == "precise":
                    row["pages"].add(c["rule"])
                if cls == "other":
                    row["others"].add(c["rule"])
                if cls in ("missed", "other"):
                    row["missed_list"].append((old, new, f, c, cls))
                details.append({"old": old, "new": new, "buf": f, "class": cls,
                                "protolapse": c and {k: c[k] for k in ("rule", "element", "number", "verdict")}})
        if a.details:
            with open(a.details, "w") as out:
                for d in details:
                    out.write(json.dumps(d) + "\n")
        report(a, buf, tags, pairs, layout, rows, errors)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(a, buf, tags, pairs, layout, rows, errors):
    name = os.path.basename(os.path.normpath(a.repo))
    print("### %s: %d pairs (%s .. %s)\n" % (name, len(pairs), pairs[0][0] if pairs else "-",
                                              pairs[-1][1] if pairs else "-"))
    print("buf %s (`breaking`, v2 categories %s), %s.\n" % (
        run([buf, "--version"]).stdout.strip(), " + ".join(CATEGORIES),
        run([PROTOLAPSE, "--version"]).stdout.strip()))
    kinds = sorted(set(layout.values()))
    print("buf layout per tag: %s.\n" % "; ".join(
        "%s (%d tags)" % (k, sum(1 for v in layout.values() if v == k)) for k in kinds))
    print("| buf rule | findings | matched | protolapse more precise (page) | under another rule | missed |")
    print("|---|---:|---:|---|---|---:|")
    tot = {"findings": 0, "matched": 0, "precise": 0, "other": 0, "missed": 0}
    for rule in sorted(rows):
        r = rows[rule]
        for k in tot:
            tot[k] += r[k]
        pages = ", ".join("`explain %s`" % p for p in sorted(r["pages"]))
        others = ", ".join(sorted(r["others"]))
        print("| %s | %d | %d | %s | %s | %d |" % (
            rule, r["findings"], r["matched"],
            ("%d (%s)" % (r["precise"], pages)) if r["precise"] else "0",
            ("%d (%s)" % (r["other"], others)) if r["other"] else "0", r["missed"]))
    print("| **total** | **%d** | **%d** | **%d** | **%d** | **%d** |\n" % (
        tot["findings"], tot["matched"], tot["precise"], tot["other"], tot["missed"]))
    def line(old, new, f, c):
        other = " (protolapse on the element: %s `%s`)" % (c["rule"], c["element"]) if c else ""
        return "%s -> %s: %s `%s`: %s%s" % (old, new, f["type"], f.get("path", ""),
                                           f.get("message", ""), other)
    missed = [m for r in sorted(rows) for m in rows[r]["missed_list"] if m[4] == "missed"]
    if missed:
        print("Missed:\n")
        for old, new, f, c, _ in missed:
            print("- " + line(old, new, f, c))
        print()
    groups = {}
    for r in sorted(rows):
        for old, new, f, c, cls in rows[r]["missed_list"]:
            if cls == "other":
                groups.setdefault((f["type"], c["rule"]), []).append((old, new, f, c))
    if groups:
        print("Under another rule (to check by hand; one example each):\n")
        for (b, p), items in sorted(groups.items()):
            print("- %d x %s beside %s, e.g. %s" % (len(items), b, p, line(*items[0])))
        print()
    if errors:
        print("Pairs not compared:\n")
        for old, new, e in errors:
            print("- %s -> %s: %s" % (old, new, e))
        print()


if __name__ == "__main__":
    main()
