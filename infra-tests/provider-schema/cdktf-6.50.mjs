// Derives a compact schema of a Terraform provider from the code that cdktf generated for it
// (the npm packages @cdktf/provider-google and @cdktf/provider-google-beta). No provider plugin
// can be downloaded where the tests run; the generated code names every argument, nested block and
// readable attribute of every resource, data source and of the provider block itself.
//
//   node cdktf-6.50.mjs <unpacked package dir> <provider name> <output file> [base file]
//
// With a base file (google-beta over google), only the entries that differ from the base are
// written. cdktf-6.50 runs it on both packages. The output has one line per
// resource, data source or provider:
//
//   resource google_pubsub_subscription: ack_deadline_seconds filter push_config{push_endpoint
//     oidc_token{audience service_account_email}} =id
//
// (on one line): a bare name is an argument, name{...} a nested block with its own items, =name
// an attribute that can only be read. generate reads it for names.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [packageDir, providerName, outputFile, baseFile] = process.argv.slice(2);
if (!outputFile) {
  console.error("usage: cdktf-6.50.mjs <package dir> <provider name> <output file>");
  process.exit(2);
}

const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
const providerVersion = /provider version ([0-9.]+)/.exec(
  readFileSync(join(packageDir, "README.md"), "utf8"),
)?.[1];
if (!providerVersion) throw new Error("README.md names no provider version");

/** The `attrs` object literal of a ToHclTerraform function or synthesizeHclAttributes(). */
const ATTR = /(\w+): \{\s*value: (.*?),\s*isBlock: (true|false),\s*type: "(\w+)",\s*storageClassType: "(\w+)",\s*\}/g;

function attrsOf(body) {
  const found = [];
  for (const m of body.matchAll(ATTR)) {
    const [, name, value, isBlock] = m;
    const fn = /(\w+)ToHclTerraform\b/.exec(value.replace(/cdktf\.\w+/g, ""));
    found.push({ name, block: isBlock === "true", fn: isBlock === "true" ? fn?.[1] : undefined });
  }
  return found;
}

/** The source text of each `function <name>ToHclTerraform(struct) {...}` (it ends at a "}" in column 0). */
function functionBodies(source) {
  const bodies = new Map();
  for (const m of source.matchAll(/^function (\w+)ToHclTerraform\(struct\) \{$([\s\S]*?)^\}$/gm)) {
    bodies.set(m[1], m[2]);
  }
  return bodies;
}

/** Class name -> its source text, for the generated classes. */
function classBodies(source) {
  const bodies = new Map();
  const starts = [...source.matchAll(/^class (\w+) extends cdktf\.(\w+) \{$/gm)];
  starts.forEach((m, i) => {
    const end = i + 1 < starts.length ? starts[i + 1].index : source.length;
    bodies.set(m[1], { kind: m[2], text: source.slice(m.index, end) });
  });
  return bodies;
}

/** Names a class lets one read: get...Attribute('x') and nested objects new X(this, "x"). */
function readable(text) {
  const names = new Set();
  for (const m of text.matchAll(/get\w*Attribute\('(\w+)'\)/g)) names.add(m[1]);
  for (const m of text.matchAll(/new [\w.]+\(this, "(\w+)"/g)) names.add(m[1]);
  return names;
}

/** index.js of one generated module, with its index-structs/*.js (large resources split there). */
function moduleSource(dir) {
  let source;
  try {
    source = readFileSync(join(dir, "index.js"), "utf8");
  } catch {
    return null;
  }
  let structs = [];
  try {
    structs = readdirSync(join(dir, "index-structs")).filter((f) => f.endsWith(".js")).sort();
  } catch {
    // small modules keep their structs in index.js
  }
  return [source, ...structs.map((f) => readFileSync(join(dir, "index-structs", f), "utf8"))].join("\n");
}

const upperFirst = (s) => s[0].toUpperCase() + s.slice(1);

function render(attrs, readableNames, functions, classes, depth) {
  if (depth > 40) throw new Error("schema nested deeper than 40 blocks");
  const items = [];
  const settable = new Set(attrs.map((a) => a.name));
  for (const a of attrs) {
    if (!a.block) {
      items.push(a.name);
      continue;
    }
    const body = functions.get(a.fn);
    if (!body) throw new Error(`no function ${a.fn}ToHclTerraform`);
    const nested = classes.get(upperFirst(a.fn) + "OutputReference");
    items.push(
      `${a.name}{${render(attrsOf(body), nested ? readable(nested.text) : new Set(), functions, classes, depth + 1)}}`,
    );
  }
  for (const name of [...readableNames].sort()) {
    if (!settable.has(name)) items.push("=" + name);
  }
  return items.join(" ");
}

const lines = [];
for (const dir of readdirSync(join(packageDir, "lib")).sort()) {
  const source = moduleSource(join(packageDir, "lib", dir));
  if (source === null) continue; // lib/index.js and friends
  const type = /^(\w+)\.tfResourceType = "([\w-]+)";$/m.exec(source);
  if (!type) continue;
  const classes = classBodies(source);
  const top = classes.get(type[1]);
  const kind = {
    TerraformResource: "resource",
    TerraformDataSource: "data",
    TerraformProvider: "provider",
  }[top?.kind];
  if (!kind) throw new Error(`${dir}: ${type[1]} is a ${top?.kind}`);
  const synth = /synthesizeHclAttributes\(\) \{([\s\S]*?)\n {4}\}/.exec(top.text);
  if (!synth) throw new Error(`${dir}: no synthesizeHclAttributes`);
  const attrs = attrsOf(synth[1]);
  const readNames = kind === "provider" ? new Set() : readable(top.text);
  lines.push(`${kind} ${type[2]}: ${render(attrs, readNames, functionBodies(source), classes, 0)}`);
}

const base = new Set(baseFile ? readFileSync(baseFile, "utf8").split("\n") : []);
const written = lines.filter((line) => !base.has(line));

const header = [
  `# Terraform provider ${providerName} ${providerVersion}: every resource, data source and the provider block,`,
  `# derived from ${pkg.name} ${pkg.version} by infra-tests/provider-schema/cdktf-6.50. Do not edit.`,
  `# name: argument; name{...}: nested block; =name: attribute that can only be read.`,
  ...(baseFile ? [`# Only the entries that differ from the base provider's file are listed.`] : []),
];
writeFileSync(outputFile, header.concat(written.sort()).join("\n") + "\n");
console.log(`${outputFile}: ${written.length} of ${lines.length} entries, ${providerName} ${providerVersion}`);
