package dev.pubsubclickhouse.backfill;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.ParameterHelp;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The README's parameter table is the one --help is made from, so the docs never drift. */
class ReadmeTest {
  @Test
  void theReadmeParameterTableIsTheParameterList() throws Exception {
    String readme = Files.readString(Path.of("README.md"));
    String start = "<!-- parameters:start -->\n";
    String table =
        readme.substring(
            readme.indexOf(start) + start.length(), readme.indexOf("<!-- parameters:end -->"));
    assertThat(table).isEqualTo(ParameterHelp.markdownTable(BackfillParameters.ALL));
  }

  @Test
  void helpListsEveryParameterWithItsDefault() {
    JobRun run = JobRun.of(java.util.Map.of(), "--help");
    assertThat(run.exitCode()).isZero();
    for (var parameter : BackfillParameters.ALL) {
      assertThat(run.out()).contains("  " + parameter.env());
      if (parameter.flag() != null) {
        assertThat(run.out()).contains(", --" + parameter.flag() + "\n");
      }
    }
    assertThat(run.out()).contains("Default: 1000000.").contains("Default: 5.");
  }
}
