"""Matching one `buf breaking` finding with protolapse's changes of the same pair: the
element a finding is about (by full name, file and line, map entries through their map
field), and its class — matched, more precise (with the page that says why), under another
rule, or missed. Used by buf-xcheck.py."""

import re

# protolapse rules that report an event buf does not see as such: buf reports a deletion (and
# an addition) or a dropped reservation where protolapse pairs the two sides. (FIELD_MAP_CHANGED
# is not one: when it judges data breaking it agrees with buf; when safe, the verdict says so.)
PAIRING_RULES = {"MESSAGE_RENAMED", "ONEOF_RENAMED", "FIELD_NUMBER_CHANGED",
                 "ENUM_VALUE_NUMBER_CHANGED", "FIELD_RESERVED_NUMBER_REUSED",
                 "FIELD_RESERVED_NAME_REUSED", "ENUM_RESERVED_REUSED"}
# buf compares fields and enum values by number, protolapse by name: when a member moved to
# another number, buf's findings on either number are protolapse's renumbering.
RENUMBER_RULES = {"FIELD_NUMBER_CHANGED", "ENUM_VALUE_NUMBER_CHANGED"}
# Pages that describe a buf rule without naming it: FIELD_REMOVED_RESERVED and
# ENUM_VALUE_REMOVED_RESERVED say "buf accepts it in WIRE and WIRE_JSON (when the name is
# reserved)", i.e. WIRE_JSON's *_NO_DELETE_UNLESS_NAME_RESERVED fires when it is not.


def loc_file(loc):
    return loc.rsplit(":", 1)[0] if loc else None


def old_ident(text):
    """The declared name in a declaration's text: `message X`, `int32 x = 1`, `X = 1`, `oneof o`."""
    if not text:
        return None
    text = text.split("[", 1)[0]
    m = re.match(r"\s*(?:message|enum|service|oneof|rpc|extend)\s+([A-Za-z_][\w]*)", text)
    if m:
        return m.group(1)
    m = re.search(r"([A-Za-z_]\w*)\s*=\s*-?\d", text)
    return m.group(1) if m else None


def names_of(c):
    el = c["element"]
    names = {el}
    old = (c.get("old") or "").strip()
    if re.fullmatch(r"[\w.]+", old) and "." in old:  # a renamed type: its old full name
        names.add(old)
    ident = old_ident(old)
    if ident and "." in el:
        names.add(el.rsplit(".", 1)[0] + "." + ident)
    return names


def numbers_of(c):
    """The field or value number on each side (a renumbering has two)."""
    nums = {c.get("number")}
    m = re.search(r"=\s*(-?\d+)", (c.get("old") or "").split("[", 1)[0])
    if m:
        nums.add(int(m.group(1)))
    return nums


def ends(name, rel):
    return name == rel or name.endswith("." + rel)


def parent(name):
    return name.rsplit(".", 1)[0] if "." in name else ""


def same_file(path, c):
    if not path:
        return True
    for f in (loc_file(c.get("old_location")), loc_file(c.get("new_location")), c["element"]):
        if f and (path == f or path.endswith("/" + f) or f.endswith("/" + path)):
            return True
    return False


def parse_finding(f):
    msg = f.get("message", "")
    q = dict(kind=None, name=None, parent=None, number=None)
    m = re.match(r'Previously present file "([^"]+)"', msg)
    if m:
        q.update(kind="file", name=m.group(1))
        return q
    m = re.search(r'(?:[Ff]ield|[Ee]num value|[Ee]xtension) "(-?\d+)"(?: with name "([^"]*)")? on (?:message|enum) "([^"]+)"', msg)
    if m:
        q.update(kind="member", number=int(m.group(1)), name=m.group(2), parent=m.group(3))
        return q
    m = re.search(r'(?:[Oo]neof|RPC|[Rr]eserved (?:range|name)|[Ee]xtension range) "([^"]+)" on (?:message|enum|service) "([^"]+)"', msg)
    if m:
        kind = "reserved" if "eserved" in msg or "xtension range" in msg else "child"
        q.update(kind=kind, name=m.group(1), parent=m.group(2))
        return q
    m = re.search(r'(?:on|from) (?:message|enum) "([^"]+)"', msg)
    if m and ("eserved" in msg or "xtension range" in msg):
        q.update(kind="reserved", parent=m.group(1))
        return q
    m = re.search(r'(?:[Mm]essage|[Ee]num|[Ss]ervice|[Ee]xtension) "([^"]+)"', msg)
    if m:
        q.update(kind="type", name=m.group(1))
        return q
    m = re.match(r'(?:File|Previously present file)', msg)
    if m or not msg:
        q.update(kind="file", name=f.get("path"))
        m = re.match(r'File option "([^"]+)"', msg)
        q["option"] = m.group(1) if m else None
    return q


def on_element(q, c, path):
    if q["kind"] == "file":
        if q.get("option") and c["rule"] == "FILE_OPTION_CHANGED":
            # one buf rule per option, one protolapse change per option: pair by option name
            text = (c.get("old") or "") + " " + (c.get("new") or "")
            if not re.search(r"\boption\s+\(?%s\b" % re.escape(q["option"]), text):
                return False
        return (c["element"] == q["name"] or same_file(q["name"], c)) if q["name"] else False
    if not same_file(path, c):
        # a type renamed into another file (or package): protolapse gives no old location
        if not (q["kind"] == "type" and c["rule"] == "MESSAGE_RENAMED" and c.get("old_location") is None):
            return False
    if q["kind"] == "member":
        return q["number"] in numbers_of(c) and any(ends(parent(n), q["parent"]) for n in names_of(c))
    if q["kind"] == "child":
        return any(ends(n, q["parent"] + "." + q["name"]) for n in names_of(c))
    if q["kind"] == "reserved":
        return any(ends(n, q["parent"]) or ends(parent(n), q["parent"]) for n in names_of(c))
    if q["kind"] == "type":
        short = q["name"].rsplit(".", 1)[-1]
        return any(ends(n, q["name"]) for n in names_of(c)) or (
            c["rule"] == "MESSAGE_RENAMED" and old_ident(c.get("old")) == short)
    return False


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def on_map_entry(q, c, path):
    """buf reports a map field's synthetic entry message (`Msg.LabelsEntry`); protolapse
    reports the map field (`Msg.labels`) or, when the whole message went, the message."""
    if q["kind"] != "type" or "." not in q["name"] or not q["name"].endswith("Entry"):
        return False
    owner, entry = q["name"].rsplit(".", 1)
    if not same_file(path, c) and c.get("old_location") is not None:
        return False
    for n in names_of(c):
        if ends(parent(n), owner) and camel(n.rsplit(".", 1)[-1]) + "Entry" == entry:
            return True
        if ends(n, owner) and c["rule"] in ("MESSAGE_REMOVED", "MESSAGE_RENAMED", "MESSAGE_MOVED"):
            return True
    return False


def flags(c, data):
    v = c["verdict"]
    cells = [v["wire"]["backward"], v["wire"]["forward"], v["json"]["backward"], v["json"]["forward"]]
    if data:
        return any(x != "safe" for x in cells)
    return v["source"] == "breaking" or any(x != "safe" for x in cells)


def classify(f, changes, related, data_rules):
    rule = f["type"]
    q = parse_finding(f)
    on = [c for c in changes if on_element(q, c, f.get("path"))]
    rel = [c for c in on if rule in related.get(c["rule"], ())]
    data = rule in data_rules
    for c in rel:
        if c["rule"] not in PAIRING_RULES and flags(c, data):
            return "matched", c, q
    if rel:
        pick = next((c for c in rel if c["rule"] in PAIRING_RULES), rel[0])
        return "precise", pick, q
    if q["kind"] == "member":
        for c in on:
            if c["rule"] in RENUMBER_RULES:
                return "precise", c, q
    # another change on the element that flags it too (a type change from a message to a
    # scalar also changes presence); additions and comments do not count
    on += [c for c in changes if c not in on and on_map_entry(q, c, f.get("path"))]

    def weight(c):
        v = c["verdict"]
        return sum(x != "safe" for x in (v["wire"]["backward"], v["wire"]["forward"],
                                         v["json"]["backward"], v["json"]["forward"]))
    for c in sorted(on, key=weight, reverse=True):
        if c["rule"].endswith("_ADDED") or c["rule"] == "COMMENT_CHANGED":
            continue
        if q["kind"] == "file" and not (q["name"] and same_file(q["name"], {"element": c["element"]})):
            continue  # a file-level finding: only a change on the file itself, not one in it
        if flags(c, data):
            return "other", c, q
    return "missed", (on[0] if on else None), q


# ---------------------------------------------------------------- report
