package dev.pubsubclickhouse.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks a test class that runs against a ClickHouse cluster on this machine; see {@link
 * ClickHouseClusterExtension}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ClickHouseClusterExtension.class)
public @interface ClickHouseClusterTest {
  /** How many shards (one server each). */
  int shards() default 2;
}
