package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclExpression.Literal;
import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each module's README holds the inputs and outputs tables made from its variables.tf and
 * outputs.tf, so the docs never drift. To regenerate them after changing a variable or output:
 *
 * <pre>
 * mvn -q -o -pl infra-tests test -Dtest=TerraformReadmeTest -Dupdate.readme=true
 * </pre>
 */
class TerraformReadmeTest {

  @Test
  void everyModulesReadmeHoldsItsGeneratedInputsAndOutputsTables() throws IOException {
    boolean update = Boolean.getBoolean("update.readme");
    for (Map.Entry<Path, TerraformConfig> module : TerraformFiles.TREE.modules().entrySet()) {
      Path readme = TerraformFiles.TREE.root().resolve(module.getKey()).resolve("README.md");
      assertThat(readme).as("every module and example has a README").exists();
      String text = Files.readString(readme, StandardCharsets.UTF_8);
      String expected =
          TerraformDocs.replaceBetween(
              TerraformDocs.replaceBetween(
                  text,
                  TerraformDocs.INPUTS_START,
                  TerraformDocs.INPUTS_END,
                  TerraformDocs.inputs(module.getValue())),
              TerraformDocs.OUTPUTS_START,
              TerraformDocs.OUTPUTS_END,
              TerraformDocs.outputs(module.getValue()));
      if (update && !text.equals(expected)) {
        Files.writeString(readme, expected, StandardCharsets.UTF_8);
        text = expected;
      }
      assertThat(text).as(readme + " (regenerate: -Dupdate.readme=true)").isEqualTo(expected);
    }
  }

  @Test
  void theModulesInputsAreGroupedAsVariablesTfIs() {
    String inputs = TerraformDocs.inputs(TerraformFiles.MODULE);

    assertThat(TerraformDocs.sectionTitles(TerraformFiles.MODULE))
        .contains("Project", "Pub/Sub", "Monitoring");
    for (String title : TerraformDocs.sectionTitles(TerraformFiles.MODULE)) {
      assertThat(inputs).contains("### " + title + "\n");
    }
    assertThat(inputs)
        .contains("| `project_id` | `string` | required | ID of the Google Cloud project")
        .contains("| `ack_deadline_seconds` | `number` | `60` |")
        .contains("| `clickhouse_password` | `string` | `null` |")
        .contains("kept in neither the state nor a saved plan")
        .contains("Sensitive. Ephemeral. |");
  }

  @Test
  void everyVariableAndOutputHasADescription() {
    for (TerraformConfig module : TerraformFiles.TREE.modules().values()) {
      assertThat(module.variables())
          .allSatisfy(
              v ->
                  assertThat(v.expr("description").stringLiterals()).as(v.describe()).isNotEmpty());
      assertThat(module.outputs())
          .allSatisfy(
              o ->
                  assertThat(o.expr("description").stringLiterals()).as(o.describe()).isNotEmpty());
    }
  }

  @Test
  void eachExamplesTfvarsSetsOnlyItsVariablesAllTheRequiredOnesAndNeverThePassword() {
    for (String example : List.of("clickhouse-cloud", "clickhouse-vm", "gke-autopilot-arm64")) {
      TerraformConfig module = TerraformFiles.TREE.module("examples/" + example);
      HclFile tfvars =
          HclFile.read(
              RepoFiles.path("terraform/examples/" + example + "/terraform.tfvars.example"),
              example + "/terraform.tfvars.example");
      List<String> declared =
          module.variables().stream().map(v -> v.label(0)).collect(Collectors.toList());
      List<String> required =
          module.variables().stream()
              .filter(v -> v.attribute("default").isEmpty())
              .map(v -> v.label(0))
              .collect(Collectors.toList());

      assertThat(tfvars.attributes().keySet()).as(example).isSubsetOf(declared);
      assertThat(tfvars.attributes().keySet()).as(example).containsAll(required);
      // The password is a placeholder here; the filled-in copy is ignored by git.
      assertThat(tfvars.attributes().get("clickhouse_password").value().literal())
          .contains(Literal.string("change-me"));
    }
    assertThat(RepoFiles.read("terraform/.gitignore")).contains("\nterraform.tfvars\n");
  }

  @Test
  void theModulesReadmeSaysWhichArchitectureRunsWhere() throws IOException {
    String readme = Files.readString(RepoFiles.path(TerraformFiles.MODULE_DIR + "/README.md"));
    int start = readme.indexOf("\n## Architecture\n");
    assertThat(start).isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    assertThat(readme.substring(start, end < 0 ? readme.length() : end))
        .contains("linux/amd64", "linux/arm64", "no CPU-architecture");
  }
}
