package dev.pubsubclickhouse.infra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.infra.hcl.HclFile;
import dev.pubsubclickhouse.infra.hcl.TerraformConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** terraform/README.md and terraform/examples: the docs name exactly what the code declares. */
class DocsTest {
  private static final TerraformConfig TF = TerraformConfig.load(RepoFiles.path("terraform"));
  private static final String README = RepoFiles.read("terraform/README.md");

  /** A table row whose first cell is a backticked name: | `name` | ... |. */
  private static final Pattern ROW =
      Pattern.compile("^\\|\\s*`([A-Za-z0-9_]+)`\\s*\\|", Pattern.MULTILINE);

  @Test
  void theReadmeInputsTableListsEveryVariableAndNothingElse() {
    List<String> variables =
        TF.variables().stream().map(b -> b.label(0)).collect(Collectors.toList());

    assertThat(rowsOf("## Inputs")).containsExactlyInAnyOrderElementsOf(variables);
  }

  @Test
  void theReadmeOutputsTableListsEveryOutputAndNothingElse() {
    List<String> outputs = TF.outputs().stream().map(b -> b.label(0)).collect(Collectors.toList());

    assertThat(rowsOf("## Outputs")).containsExactlyInAnyOrderElementsOf(outputs);
  }

  @Test
  void everyOutputHasADescription() {
    assertThat(TF.outputs())
        .allSatisfy(
            o -> assertThat(o.expr("description").stringLiterals()).as(o.describe()).isNotEmpty());
  }

  @Test
  void theTfvarsExampleSetsOnlyDeclaredVariablesAndNeverThePassword() {
    HclFile example =
        HclFile.read(
            RepoFiles.path("terraform/examples/terraform.tfvars.example"),
            "examples/terraform.tfvars.example");
    List<String> declared =
        TF.variables().stream().map(b -> b.label(0)).collect(Collectors.toList());

    assertThat(example.attributes().keySet()).isNotEmpty().isSubsetOf(declared);
    assertThat(example.attributes()).doesNotContainKey("clickhouse_password");
    List<String> required =
        TF.variables().stream()
            .filter(v -> v.attribute("default").isEmpty())
            .map(b -> b.label(0))
            .collect(Collectors.toList());
    assertThat(example.attributes().keySet()).containsAll(required);
  }

  @Test
  void theReadmeSaysWhichArchitectureRunsWhere() {
    String architecture = section("## Architecture");

    assertThat(architecture).contains("linux/amd64", "linux/arm64", "no CPU-architecture");
  }

  private static List<String> rowsOf(String heading) {
    Matcher rows = ROW.matcher(section(heading));
    List<String> names = new ArrayList<>();
    while (rows.find()) {
      names.add(rows.group(1));
    }
    return names;
  }

  /** The text from {@code heading} to the next heading of the same level. */
  private static String section(String heading) {
    int start = README.indexOf("\n" + heading + "\n");
    assertThat(start).as("README heading " + heading).isNotNegative();
    int end = README.indexOf("\n## ", start + heading.length() + 1);
    return README.substring(start, end < 0 ? README.length() : end);
  }
}
