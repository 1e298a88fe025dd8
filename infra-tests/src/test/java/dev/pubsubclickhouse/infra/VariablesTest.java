package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclBlock;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Comparison;
import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The module's variables.tf: every input typed, described and, where constrained, validated. */
class VariablesTest {
  private static final TerraformConfig TF = TerraformFiles.MODULE;

  @Test
  void everyVariableHasATypeAndADescription() {
    List<String> missing = new ArrayList<>();
    for (HclBlock variable : TF.variables()) {
      if (variable.attribute("type").isEmpty()) {
        missing.add(variable.label(0) + ": no type");
      }
      String description =
          variable
              .attribute("description")
              .map(a -> String.join("", a.value().stringLiterals()))
              .orElse("");
      if (description.isBlank()) {
        missing.add(variable.label(0) + ": no description");
      }
    }

    assertThat(TF.variables()).isNotEmpty();
    assertThat(missing).isEmpty();
  }

  @Test
  void variablesAreDeclaredOnlyInVariablesTf() {
    assertThat(TF.variables()).extracting(HclBlock::file).containsOnly("variables.tf");
  }

  @Test
  void maxDeliveryAttemptsMustBeBetween5And100() {
    assertThat(Range.validatedOn("max_delivery_attempts")).isEqualTo(new Range(5, 100));
  }

  @Test
  void ackDeadlineSecondsMustBeBetween10And600() {
    assertThat(Range.validatedOn("ack_deadline_seconds")).isEqualTo(new Range(10, 600));
  }

  @Test
  void backoffsMustBeBetween0And600Seconds() {
    assertThat(Range.validatedOn("minimum_backoff_seconds")).isEqualTo(new Range(0, 600));
    assertThat(Range.validatedOn("maximum_backoff_seconds")).isEqualTo(new Range(0, 600));
  }

  @Test
  void thePasswordVariableIsSensitiveAndHasNoValueByDefault() {
    HclBlock password = TF.variable("clickhouse_password");

    assertThat(password.expr("sensitive").literal()).contains(Literal.bool(true));
    assertThat(password.expr("default").literal()).contains(Literal.nullValue());
  }

  @Test
  void thePasswordNeverEntersTheStateNorASavedPlan() {
    // Only a write-only argument reads it: Terraform sends it and keeps neither it nor a hash.
    // Ephemeral, in the module and in the examples' root variables, so terraform plan -out does
    // not write it into the plan file either; that rules it out of count, which a separate
    // boolean decides.
    HclBlock version = TF.resource("google_secret_manager_secret_version", "clickhouse_password");
    List<String> readers =
        TF.nestedAttributes().stream()
            .filter(n -> n.attribute().value().references().contains("var.clickhouse_password"))
            .map(n -> n.path().get(0).describe() + " " + n.attribute().name())
            .collect(Collectors.toList());

    assertThat(TF.variable("clickhouse_password").expr("sensitive").literal())
        .contains(Literal.bool(true));
    assertThat(version.attribute("secret_data")).isEmpty();
    assertThat(version.expr("secret_data_wo").references())
        .containsExactly("var.clickhouse_password");
    assertThat(version.expr("secret_data_wo_version").references())
        .containsExactly("var.clickhouse_password_version");
    assertThat(readers)
        .containsExactlyInAnyOrder(
            version.describe() + " secret_data_wo", version.describe() + " condition");
    assertThat(version.block("lifecycle").block("precondition").expr("condition").text())
        .isEqualTo("var.clickhouse_password != null");
    assertThat(version.expr("count").references()).containsExactly("var.set_clickhouse_password");
    assertThat(TF.variable("clickhouse_password").expr("ephemeral").literal())
        .contains(Literal.bool(true));
    for (String example : List.of("clickhouse-cloud", "clickhouse-vm")) {
      assertThat(
              TerraformFiles.TREE
                  .module("examples/" + example)
                  .variable("clickhouse_password")
                  .expr("ephemeral")
                  .literal())
          .as(example)
          .contains(Literal.bool(true));
    }
    assertThat(TerraformFiles.MODULE.file("versions.tf").source())
        .contains("required_version = \">= 1.11\"");
  }

  /** The inclusive bounds a variable's validation puts on it: var.x >= lo && var.x <= hi. */
  record Range(double lower, double upper) {
    static Range validatedOn(String name) {
      Double lower = null;
      Double upper = null;
      for (HclBlock validation : TF.variable(name).blocks("validation")) {
        for (Comparison c : validation.expr("condition").comparisons()) {
          if (!c.reference().equals("var." + name) || !"number".equals(c.literal().type())) {
            continue;
          }
          double bound = Double.parseDouble(c.literal().value());
          switch (c.operator()) {
            case ">=" -> lower = bound;
            case "<=" -> upper = bound;
            default -> {}
          }
        }
      }
      if (lower == null || upper == null) {
        throw new AssertionError(
            "variable " + name + " has no validation of the form var.x >= lo && var.x <= hi");
      }
      return new Range(lower, upper);
    }
  }
}
