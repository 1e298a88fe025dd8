package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.ParameterHelp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's parameter table and --help are made from the same parameter list as the command
 * line, so the docs never drift.
 */
class ReadmeTest {
  @Test
  void theReadmeParameterTableIsTheParameterList() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String start = "<!-- parameters:start -->\n";
    String table =
        readme.substring(
            readme.indexOf(start) + start.length(), readme.indexOf("<!-- parameters:end -->"));
    String expected = ParameterHelp.markdownTable(BackfillParameters.ALL);
    // Regenerate the README's table from this file when the parameters change.
    Files.writeString(Path.of("target/readme-parameters.md"), expected);
    assertThat(table).isEqualTo(expected);
  }

  @Test
  void helpListsEveryParameterWithItsVariableAndDefault() throws Exception {
    JobRun run = JobRun.of(java.util.Map.of(), "--help");
    Files.writeString(Path.of("target/backfill-help.txt"), run.out());

    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .startsWith("Backfill a BigQuery table or query into a ClickHouse table.\n")
        .contains("Usage: java -jar backfill-job.jar [OPTIONS]");
    String flat = run.out().replaceAll("\\s+", " ");
    for (var parameter : BackfillParameters.ALL) {
      if (parameter.flag() != null) {
        assertThat(run.out())
            .containsAnyOf(
                "--" + parameter.flag() + "=" + parameter.env(),
                "--" + parameter.flag() + "[=" + parameter.env() + "]");
      } else {
        assertThat(run.out()).contains("\n  " + parameter.env() + "\n");
      }
      if (parameter.defaultValue() != null) {
        assertThat(flat).contains("Default: " + parameter.defaultValue() + ".");
      }
    }
    assertThat(run.out()).contains("--where, --rowRestriction=ROW_RESTRICTION");
  }
}
