"""scripts/terraform-provider-schema.py on a package cut down to one resource and the provider:
the schema lines it writes, the header, and what a base file leaves out."""

import contextlib
import importlib.util
import io
import json
import os
import tempfile
import textwrap
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "terraform_provider_schema", os.path.join(SCRIPTS, "terraform-provider-schema.py"))
schema = importlib.util.module_from_spec(spec)
spec.loader.exec_module(schema)


def attr(name, value, block=False):
    return textwrap.indent(textwrap.dedent("""\
        %s: {
            value: %s,
            isBlock: %s,
            type: "%s",
            storageClassType: "string",
        },
        """) % (name, value, "true" if block else "false", "struct" if block else "simple"),
        " " * 12)


# The shape cdktf generates: a block's ToHclTerraform function, its OutputReference class, the
# resource class with its getters and synthesizeHclAttributes(), and tfResourceType.
TOPIC = ("function pubsubTopicRetentionToHclTerraform(struct) {\n    const attrs = {\n"
         + attr("days", "cdktf.numberToHclTerraform(struct.days)")
         + "    };\n}\n"
         "class PubsubTopicRetentionOutputReference extends cdktf.ComplexObject {\n"
         "    get days() { return this.getNumberAttribute('days'); }\n"
         "    get effective() { return this.getStringAttribute('effective'); }\n}\n"
         "class PubsubTopic extends cdktf.TerraformResource {\n"
         "    get name() { return this.getStringAttribute('name'); }\n"
         "    get id() { return this.getStringAttribute('id'); }\n"
         "    _retention = new PubsubTopicRetentionOutputReference(this, \"retention\");\n"
         "    synthesizeHclAttributes() {\n        const attrs = {\n"
         + attr("name", "cdktf.stringToHclTerraform(this._name)")
         + attr("retention", "pubsubTopicRetentionToHclTerraform(this._retention.internalValue)",
                block=True)
         + "        };\n    }\n}\n"
         'PubsubTopic.tfResourceType = "google_pubsub_topic";\n')
PROVIDER = ("class GoogleProvider extends cdktf.TerraformProvider {\n"
            "    get project() { return this.getStringAttribute('project'); }\n"
            "    synthesizeHclAttributes() {\n        const attrs = {\n"
            + attr("project", "cdktf.stringToHclTerraform(this._project)")
            + "        };\n    }\n}\n"
            'GoogleProvider.tfResourceType = "google";\n')


class TerraformProviderSchemaTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.package = os.path.join(self.tmp.name, "package")
        for module, source in [("pubsub-topic", TOPIC), ("provider", PROVIDER)]:
            os.makedirs(os.path.join(self.package, "lib", module))
            with open(os.path.join(self.package, "lib", module, "index.js"), "w") as f:
                f.write(source)
        with open(os.path.join(self.package, "lib", "index.js"), "w") as f:
            f.write("// re-exports, no module of its own\n")
        with open(os.path.join(self.package, "package.json"), "w") as f:
            json.dump({"name": "@cdktf/provider-google", "version": "16.12.1"}, f)
        with open(os.path.join(self.package, "README.md"), "w") as f:
            f.write("Generated from provider version 6.50.0 of hashicorp/google.\n")

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.tmp.name, name)) as f:
            return f.read()

    def test_lines_name_arguments_blocks_and_read_only_attributes(self):
        self.assertEqual(schema.schema_lines(self.package), [
            "provider google: project",
            "resource google_pubsub_topic: name retention{days =effective} =id",
        ])

    def test_the_file_has_the_header_and_sorted_lines(self):
        out = os.path.join(self.tmp.name, "google.txt")
        with contextlib.redirect_stdout(io.StringIO()):
            schema.main([self.package, "google", out])
        self.assertEqual(self.read("google.txt"), (
            "# Terraform provider google 6.50.0: every resource, data source and the provider"
            " block,\n"
            "# derived from @cdktf/provider-google 16.12.1 by scripts/terraform-provider-schema."
            " Do not edit.\n"
            "# name: argument; name{...}: nested block; =name: attribute that can only be read.\n"
            "provider google: project\n"
            "resource google_pubsub_topic: name retention{days =effective} =id\n"))

    def test_a_base_file_leaves_out_the_lines_it_has(self):
        base = os.path.join(self.tmp.name, "google.txt")
        with open(base, "w") as f:
            f.write("provider google: project\n")
        out = os.path.join(self.tmp.name, "google-beta.txt")
        with contextlib.redirect_stdout(io.StringIO()):
            schema.main([self.package, "google-beta", out, base])
        self.assertEqual(self.read("google-beta.txt").splitlines()[3:], [
            "# Only the entries that differ from the base provider's file are listed.",
            "resource google_pubsub_topic: name retention{days =effective} =id",
        ])

    def test_a_block_without_its_function_is_an_error(self):
        with open(os.path.join(self.package, "lib", "pubsub-topic", "index.js"), "w") as f:
            f.write(TOPIC.replace("function pubsubTopicRetentionToHclTerraform",
                                  "function otherToHclTerraform"))
        with self.assertRaisesRegex(ValueError, "no function pubsubTopicRetentionToHclTerraform"):
            schema.schema_lines(self.package)


if __name__ == "__main__":
    unittest.main()
