#!/usr/bin/env python3
"""Derives the Google provider 7.x schema that infra-tests checks terraform/ against.

It reads the TypeScript declarations of @pulumi/gcp 9.x, which Pulumi's bridge generates from the
google-beta 7.x provider (no provider plugin can be downloaded where the tests run):

  infra-tests/provider-schema/pulumi-7.py <unpacked @pulumi/gcp dir> <dir of google-6.50.txt> <output dir>

Pulumi renames what Terraform spells in snake_case: camelCase properties, list properties in the
plural (env -> envs, allow -> allows, command -> commands), and resource tokens
(gcp:cloudrunv2/service:Service for google_cloud_run_v2_service). So the names come back this way:

- a resource or data source type is matched to its Terraform name by the letters of module and
  name (cloudrunv2 + service = cloud_run_v2_service without underscores), or of the name alone;
  the 6.50 files give the Terraform spelling, and a type they do not match (new since 6.50, or a
  module Pulumi names otherwise, such as backupdisasterrecovery for backup_dr) gets
  google_<module>_<name>, which the check refuses if Terraform spells it otherwise;
- a property is snake_cased; a list property ending in "s" is the Terraform name the 6.50 schema
  has for it (singular or plural), or both spellings when 6.50 did not have it;
- google-beta is Pulumi's schema as it is; google (GA) leaves out the types, arguments and blocks
  that 6.50 had in google-beta only (one that became GA since is still refused: the check errs on
  the side of refusing).

The output is the format of scripts/terraform-provider-schema.py: one line per resource, data
source or provider, "name" an argument, "name{...}" a nested block, "=name" an attribute that can
only be read. Standard library only.
"""

import json
import os
import re
import sys


class Node:
    """One block: its arguments, nested blocks and read-only attributes."""

    def __init__(self):
        self.args = set()
        self.blocks = {}
        self.read = set()

    def has(self, name):
        return name in self.args or name in self.blocks or name in self.read


def parse_body(text):
    """'a b{c} =d' as a Node."""
    pos = 0

    def body():
        nonlocal pos
        node = Node()
        while pos < len(text) and text[pos] != "}":
            if text[pos] == " ":
                pos += 1
                continue
            read_only = text[pos] == "="
            if read_only:
                pos += 1
            start = pos
            while pos < len(text) and text[pos] not in " {}":
                pos += 1
            name = text[start:pos]
            if pos < len(text) and text[pos] == "{":
                pos += 1
                node.blocks[name] = body()
                pos += 1
            elif read_only:
                node.read.add(name)
            else:
                node.args.add(name)
        return node

    return body()


def read_schema(path):
    entries = {}
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            if not line or line.startswith("#"):
                continue
            colon = line.index(": ")
            entries[line[:colon]] = parse_body(line[colon + 2:])
    return entries


def squash(name):
    return re.sub(r"^google_", "", name).replace("_", "").lower()


def snake(name):
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"([A-Z])([A-Z][a-z])", r"\1_\2", name).lower()


def property_types(text, start):
    """Property name -> its type text, for the declaration body whose "{" follows start."""
    opening = text.index("{", start)
    depth = 0
    i = opening
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    body = re.sub(r"/\*\*[\s\S]*?\*/", "", text[opening + 1:i])
    types = {}
    depth = 0
    begin = 0
    for j, c in enumerate(body):
        if c in "{<([":
            depth += 1
        elif c in "}>)]":
            depth -= 1
        elif c == ";" and depth == 0:
            declaration = body[begin:j].strip()
            begin = j + 1
            m = re.match(r"^(?:readonly\s+)?(\w+)\??\s*:\s*([\s\S]*)$", declaration)
            if m:
                types[m.group(1)] = m.group(2)
    return types


def namespace_index(text):
    """'ns.Name' -> (namespace text, offset of the interface), for the nested types."""
    index = {}
    starts = list(re.finditer(r"^export declare namespace (\w+) \{$", text, re.M))
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        chunk = text[m.start():end]
        for im in re.finditer(r"^    interface (\w+) \{$", chunk, re.M):
            index["%s.%s" % (m.group(1), im.group(1))] = (chunk, im.start())
    return index


def shape(type_text):
    nested = re.search(r"(?:inputs|outputs)\.(\w+\.\w+)", type_text)
    return (nested.group(1) if nested else None), "[]" in type_text


def tf_property_names(name, is_list, known):
    """Terraform's name(s) for a property: snake_case, and for a list the 6.50 spelling."""
    plain = snake(name)
    if not is_list or not plain.endswith("s"):
        return [plain]
    singular = plain[:-3] + "y" if plain.endswith("ies") else plain[:-1]
    if known is not None:
        if known.has(singular) and not known.has(plain):
            return [singular]
        if known.has(plain):
            return [plain]
    return [plain, singular]


def node_from(types, index, known, depth=0):
    node = Node()
    if depth > 30:
        return node
    for name, type_text in types.items():
        nested, is_list = shape(type_text)
        for tf in tf_property_names(name, is_list, known):
            if nested and nested in index:
                chunk, at = index[nested]
                inner = known.blocks.get(tf) if known is not None else None
                node.blocks[tf] = node_from(property_types(chunk, at), index, inner, depth + 1)
            else:
                node.args.add(tf)
    return node


def without(node, beta, ga):
    """node less what beta has and ga lacks (both 6.50)."""
    out = Node()
    out.read = set(node.read)
    for a in node.args:
        if not (beta is not None and a in beta.args and ga is not None and a not in ga.args):
            out.args.add(a)
    for name, child in node.blocks.items():
        if beta is not None and name in beta.blocks and ga is not None and name not in ga.blocks:
            continue
        out.blocks[name] = without(
            child,
            beta.blocks.get(name) if beta is not None else None,
            ga.blocks.get(name) if ga is not None else None,
        )
    return out


def render(node):
    items = sorted(node.args)
    for name in sorted(node.blocks):
        items.append("%s{%s}" % (name, render(node.blocks[name])))
    items.extend("=" + r for r in sorted(node.read))
    return " ".join(items)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: pulumi-7.py <@pulumi/gcp dir> <dir of the 6.50 files> <output dir>")
    pkg_dir, base_dir, out_dir = argv
    pkg = json.loads(read(os.path.join(pkg_dir, "package.json")))

    ga650 = read_schema(os.path.join(base_dir, "google-6.50.txt"))
    beta650 = dict(ga650)
    beta650.update(read_schema(os.path.join(base_dir, "google-beta-6.50.txt")))
    tf_names = {"resource": {}, "data": {}}
    for key in beta650:
        kind, _, name = key.partition(" ")
        if name and kind in tf_names:
            tf_names[kind][squash(name)] = name

    input_index = namespace_index(read(os.path.join(pkg_dir, "types", "input.d.ts")))
    output_index = namespace_index(read(os.path.join(pkg_dir, "types", "output.d.ts")))
    module_alias = {"projects": "project", "organizations": ""}

    beta7 = {}
    modules = sorted(
        d for d in os.listdir(pkg_dir)
        if os.path.isdir(os.path.join(pkg_dir, d)) and d not in ("types", "config"))
    for mod in modules:
        for file in sorted(f for f in os.listdir(os.path.join(pkg_dir, mod)) if f.endswith(".d.ts")):
            base = file[:-5]
            if base in ("index", "zMixins"):
                continue
            text = read(os.path.join(pkg_dir, mod, file))
            is_data = base.startswith("get") and "export declare function get" in text
            name = base[3:] if is_data else base
            cls = None if is_data else re.search(
                r"export declare class (\w+) extends pulumi\.CustomResource", text)
            if not is_data and not cls:
                continue
            prefix = module_alias.get(mod, mod)
            squashed = "serviceaccount" if (mod, name) == ("serviceaccount", "account") \
                else (prefix + name).lower()
            kind = "data" if is_data else "resource"
            # Module and name, else the name alone (kms/getKMSCryptoKey), else the module's
            # singular; serviceaccount/getAccount has no match and keeps a derived name.
            tf_name = (
                tf_names[kind].get(squashed)
                or tf_names[kind].get(name.lower())
                or tf_names[kind].get((re.sub(r"s$", "", prefix) + name).lower())
                or "google_%s%s%s" % (snake(prefix), "_" if prefix else "", snake(name)))
            key = "%s %s" % (kind, tf_name)
            if key in beta7:
                continue
            known = beta650.get(key)
            upper = name[0].upper() + name[1:]
            if is_data:
                args_at = text.find("export interface Get%sArgs {" % upper)
                result_at = text.find("export interface Get%sResult {" % upper)
                node = node_from(property_types(text, args_at), input_index, known) \
                    if args_at >= 0 else Node()
                if result_at >= 0:
                    result = node_from(property_types(text, result_at), output_index, known)
                    for n in sorted(result.args) + sorted(result.blocks):
                        if n not in node.args and n not in node.blocks:
                            node.read.add(n)
            else:
                args_at = text.find("export interface %sArgs {" % cls.group(1))
                node = node_from(property_types(text, args_at), input_index, known) \
                    if args_at >= 0 else Node()
                for prop, type_text in property_types(text, text.index(cls.group(0))).items():
                    if "pulumi.Output<" not in type_text:
                        continue
                    for n in tf_property_names(prop, shape(type_text)[1], known):
                        if n not in node.args and n not in node.blocks:
                            node.read.add(n)
            node.args.add("id")
            beta7[key] = node

    provider_text = read(os.path.join(pkg_dir, "provider.d.ts"))
    beta7["provider google-beta"] = node_from(
        property_types(provider_text, provider_text.index("export interface ProviderArgs {")),
        input_index, beta650.get("provider google-beta"))

    ga7 = {}
    for key, node in beta7.items():
        ga_key = "provider google" if key == "provider google-beta" else key
        if key in beta650 and ga_key not in ga650:
            continue
        ga7[ga_key] = without(node, beta650.get(key), ga650.get(ga_key))

    def write(file, provider, entries, base):
        lines = []
        for key in sorted(entries):
            text = render(entries[key])
            if base is not None and key in base and render(base[key]) == text:
                continue
            lines.append("%s: %s" % (key, text))
        header = [
            "# Terraform provider %s 7.x: every resource, data source and the provider block," % provider,
            "# derived from %s %s (generated from google-beta 7.x) by" % (pkg["name"], pkg["version"]),
            "# infra-tests/provider-schema/generate, with Terraform's names from the 6.50 files. Do not edit.",
            "# name: argument; name{...}: nested block; =name: attribute that can only be read.",
        ]
        if base is not None:
            header.append("# Only the entries that differ from google.txt.")
        with open(os.path.join(out_dir, file), "w", encoding="utf-8") as f:
            f.write("\n".join(header + lines) + "\n")
        print("%s: %d entries" % (file, len(lines)))

    write("google.txt", "google", ga7, None)
    write("google-beta.txt", "google-beta", beta7, ga7)


if __name__ == "__main__":
    main(sys.argv[1:])
