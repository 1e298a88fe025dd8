#!/usr/bin/env python3
"""Derives a compact schema of a Terraform provider from the code cdktf generated for it.

The npm packages @cdktf/provider-google and @cdktf/provider-google-beta hold that code. No provider
plugin can be downloaded where the tests run, but the generated code names every argument, nested
block and readable attribute of every resource, data source and of the provider block itself.

  scripts/terraform-provider-schema.py <unpacked package dir> <provider name> <output file> [base file]

With a base file (google-beta over google), only the entries that differ from the base are
written. scripts/terraform-provider-schema runs it on both packages. The output has one line per
resource, data source or provider:

  resource google_pubsub_subscription: ack_deadline_seconds filter push_config{push_endpoint
    oidc_token{audience service_account_email}} =id

(on one line): a bare name is an argument, name{...} a nested block with its own items, =name an
attribute that can only be read. infra-tests' ProviderSchema reads it. Standard library only.
"""

import json
import os
import re
import sys

# The generated code is ASCII JavaScript: \w and \s mean what they mean there.
FLAGS = re.ASCII

# The `attrs` object literal of a ToHclTerraform function or synthesizeHclAttributes().
ATTR = re.compile(
    r'(\w+): \{\s*value: (.*?),\s*isBlock: (true|false),\s*type: "(\w+)",'
    r'\s*storageClassType: "(\w+)",\s*\}', FLAGS)
TO_HCL = re.compile(r"(\w+)ToHclTerraform\b", FLAGS)
CDKTF_NAME = re.compile(r"cdktf\.\w+", FLAGS)
FUNCTION = re.compile(r"^function (\w+)ToHclTerraform\(struct\) \{$(.*?)^\}$",
                      FLAGS | re.MULTILINE | re.DOTALL)
CLASS = re.compile(r"^class (\w+) extends cdktf\.(\w+) \{$", FLAGS | re.MULTILINE)
GETTER = re.compile(r"get\w*Attribute\('(\w+)'\)", FLAGS)
NESTED_OBJECT = re.compile(r'new [\w.]+\(this, "(\w+)"', FLAGS)
RESOURCE_TYPE = re.compile(r'^(\w+)\.tfResourceType = "([\w-]+)";$', FLAGS | re.MULTILINE)
SYNTHESIZE = re.compile(r"synthesizeHclAttributes\(\) \{(.*?)\n {4}\}", FLAGS | re.DOTALL)
PROVIDER_VERSION = re.compile(r"provider version ([0-9.]+)", FLAGS)
KINDS = {"TerraformResource": "resource", "TerraformDataSource": "data",
         "TerraformProvider": "provider"}


def attrs_of(body):
    """(name, is a block, the ToHclTerraform function of the block or None) for each attribute."""
    found = []
    for m in ATTR.finditer(body):
        name, value, is_block = m.group(1), m.group(2), m.group(3) == "true"
        fn = TO_HCL.search(CDKTF_NAME.sub("", value)) if is_block else None
        found.append((name, is_block, fn.group(1) if fn else None))
    return found


def function_bodies(source):
    """The text of each `function <name>ToHclTerraform(struct) {...}` (it ends at a "}" in
    column 0), by name."""
    return {m.group(1): m.group(2) for m in FUNCTION.finditer(source)}


def class_bodies(source):
    """Class name -> (the cdktf class it extends, its source text), for the generated classes."""
    starts = list(CLASS.finditer(source))
    bodies = {}
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(source)
        bodies[m.group(1)] = (m.group(2), source[m.start():end])
    return bodies


def readable(text):
    """Names a class lets one read: get...Attribute('x') and nested objects new X(this, "x")."""
    return set(GETTER.findall(text)) | set(NESTED_OBJECT.findall(text))


def module_source(directory):
    """index.js of one generated module with its index-structs/*.js (large resources split
    there), or None where the directory has no index.js."""
    try:
        with open(os.path.join(directory, "index.js"), encoding="utf-8") as f:
            parts = [f.read()]
    except OSError:
        return None
    structs_dir = os.path.join(directory, "index-structs")
    if os.path.isdir(structs_dir):  # small modules keep their structs in index.js
        for name in sorted(n for n in os.listdir(structs_dir) if n.endswith(".js")):
            with open(os.path.join(structs_dir, name), encoding="utf-8") as f:
                parts.append(f.read())
    return "\n".join(parts)


def render(attrs, readable_names, functions, classes, depth=0):
    if depth > 40:
        raise ValueError("schema nested deeper than 40 blocks")
    items = []
    for name, is_block, fn in attrs:
        if not is_block:
            items.append(name)
            continue
        body = functions.get(fn)
        if body is None:
            raise ValueError("no function %sToHclTerraform" % fn)
        nested = classes.get(fn[0].upper() + fn[1:] + "OutputReference")
        inner = render(attrs_of(body), readable(nested[1]) if nested else set(), functions,
                       classes, depth + 1)
        items.append("%s{%s}" % (name, inner))
    settable = {name for name, _, _ in attrs}
    items += ["=" + name for name in sorted(readable_names) if name not in settable]
    return " ".join(items)


def schema_lines(package_dir):
    """One line per resource, data source and provider block of the package, in its lib/ order."""
    lines = []
    lib = os.path.join(package_dir, "lib")
    for entry in sorted(os.listdir(lib)):
        source = module_source(os.path.join(lib, entry))
        if source is None:
            continue  # lib/index.js and friends
        resource_type = RESOURCE_TYPE.search(source)
        if not resource_type:
            continue
        classes = class_bodies(source)
        top = classes.get(resource_type.group(1))
        kind = KINDS.get(top[0]) if top else None
        if not kind:
            raise ValueError("%s: %s is a %s" % (entry, resource_type.group(1),
                                                 top[0] if top else None))
        synth = SYNTHESIZE.search(top[1])
        if not synth:
            raise ValueError("%s: no synthesizeHclAttributes" % entry)
        read_names = set() if kind == "provider" else readable(top[1])
        lines.append("%s %s: %s" % (kind, resource_type.group(2), render(
            attrs_of(synth.group(1)), read_names, function_bodies(source), classes)))
    return lines


def js_sort_key(line):
    """JavaScript's default sort order: by UTF-16 code units."""
    return line.encode("utf-16-be")


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("usage: terraform-provider-schema.py <package dir> <provider name> <output file>"
                 " [base file]")
    package_dir, provider_name, output_file = argv[:3]
    base_file = argv[3] if len(argv) == 4 else None
    with open(os.path.join(package_dir, "package.json"), encoding="utf-8") as f:
        package = json.load(f)
    with open(os.path.join(package_dir, "README.md"), encoding="utf-8") as f:
        version = PROVIDER_VERSION.search(f.read())
    if not version:
        sys.exit("README.md names no provider version")
    lines = schema_lines(package_dir)
    base = set()
    if base_file:
        with open(base_file, encoding="utf-8") as f:
            base = set(f.read().split("\n"))
    written = sorted((line for line in lines if line not in base), key=js_sort_key)
    header = [
        "# Terraform provider %s %s: every resource, data source and the provider block,"
        % (provider_name, version.group(1)),
        "# derived from %s %s by scripts/terraform-provider-schema. Do not edit."
        % (package["name"], package["version"]),
        "# name: argument; name{...}: nested block; =name: attribute that can only be read.",
    ]
    if base_file:
        header.append("# Only the entries that differ from the base provider's file are listed.")
    with open(output_file, "w", encoding="utf-8") as f:
        f.write("\n".join(header + written) + "\n")
    print("%s: %d of %d entries, %s %s" % (output_file, len(written), len(lines), provider_name,
                                           version.group(1)))


if __name__ == "__main__":
    main(sys.argv[1:])
