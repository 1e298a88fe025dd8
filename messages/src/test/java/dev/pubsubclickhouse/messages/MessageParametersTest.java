package dev.pubsubclickhouse.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.config.Parameter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageParametersTest {
  /** Replay warns of a variable one typo from these: a parameter left out would be ignored. */
  @Test
  void allListsEveryParameter() throws Exception {
    List<Parameter> declared = new ArrayList<>();
    for (Field field : MessageParameters.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == Parameter.class) {
        declared.add((Parameter) field.get(null));
      }
    }
    assertThat(MessageParameters.ALL).containsExactlyInAnyOrderElementsOf(declared);
  }
}
