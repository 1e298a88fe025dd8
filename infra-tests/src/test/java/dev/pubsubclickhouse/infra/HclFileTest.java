package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import org.junit.jupiter.api.Test;

/** The reader under every Terraform test: it must see what is written, or refuse the file. */
class HclFileTest {

  @Test
  void aTemplateDirectiveIsRefusedRatherThanReadAsText() {
    String source = "locals {\n  a = \"%{if true}x%{endif}\"\n}\n";

    assertThatThrownBy(() -> HclFile.parse("t.tf", source))
        .hasMessage("t.tf:2: not valid HCL: template directives (%{...}) are not read here");
  }

  @Test
  void heredocsForExpressionsConditionalsAndOperatorsAreRead() {
    HclFile file =
        HclFile.parse(
            "t.tf",
            "locals {\n"
                + "  a = <<-EOT\n    x ${var.y}\n  EOT\n"
                + "  b = { for k, v in var.m : k => v if v != null }\n"
                + "  c = var.n >= 10 && var.n <= 600 ? -1 : 2 * (3 + 4)\n"
                + "  d = [for s in var.l : upper(s)]\n"
                + "}\n");
    HclBlock locals = file.blocks().get(0);

    assertThat(locals.expr("a").references()).containsExactly("var.y");
    assertThat(locals.expr("a").stringLiterals()).containsExactly("    x ", "\n");
    assertThat(locals.expr("b").references()).containsExactly("var.m", "k", "v", "v");
    assertThat(locals.expr("c").comparisons())
        .extracting(c -> c.reference() + " " + c.operator() + " " + c.literal().value())
        .containsExactly("var.n >= 10", "var.n <= 600");
    assertThat(locals.expr("d").functions()).containsExactly("upper");
    assertThat(locals.attribute("d").orElseThrow().line()).isEqualTo(7);
  }

  @Test
  void aBlockThatIsNeverClosedIsRefusedNotDropped() {
    String source = "resource \"a\" \"b\" {\n  x = \"y\"\n";

    assertThatThrownBy(() -> HclFile.parse("broken.tf", source))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broken.tf");
  }

  @Test
  void aLexicalErrorIsRefused() {
    String source = "resource \"a\" \"b\" {\n  x = = \"y\"\n}\n";

    assertThatThrownBy(() -> HclFile.parse("broken.tf", source))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("broken.tf:2: not valid HCL: unexpected '='");
  }

  @Test
  void referencesKeepIndexesAndFunctionArgumentsButNotFunctionNames() {
    HclFile file =
        HclFile.parse(
            "t.tf",
            "locals {\n"
                + "  a = one(google_compute_instance.vm[*].network_interface[0].network_ip)\n"
                + "  b = \"serviceAccount:${google_service_account.push.email}\"\n"
                + "  c = var.x == null ? null : tostring(var.x)\n"
                + "}\n");
    HclBlock locals = file.blocks().get(0);

    assertThat(locals.expr("a").references())
        .containsExactly("google_compute_instance.vm[*].network_interface[0].network_ip");
    assertThat(locals.expr("a").functions()).containsExactly("one");
    assertThat(locals.expr("b").stringLiterals()).containsExactly("serviceAccount:");
    assertThat(locals.expr("b").references()).containsExactly("google_service_account.push.email");
    assertThat(locals.expr("c").references()).containsExactly("var.x", "var.x");
    assertThat(locals.expr("c").literals())
        .containsExactly(Literal.nullValue(), Literal.nullValue());
  }

  @Test
  void nestedBlocksAndDynamicBlocksAreFoundByType() {
    HclFile file =
        HclFile.parse(
            "t.tf",
            "resource \"t\" \"n\" {\n"
                + "  outer {\n"
                + "    dynamic \"inner\" {\n"
                + "      for_each = var.on ? [1] : []\n"
                + "      content {\n"
                + "        flag = true\n"
                + "      }\n"
                + "    }\n"
                + "  }\n"
                + "}\n");
    HclBlock resource = file.blocks().get(0);

    assertThat(resource.labels()).containsExactly("t", "n");
    assertThat(resource.block("outer").dynamic("inner").block("content").expr("flag").literal())
        .contains(Literal.bool(true));
    assertThat(resource.block("outer").line()).isEqualTo(2);
  }
}
