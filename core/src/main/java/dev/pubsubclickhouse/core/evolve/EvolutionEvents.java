package dev.pubsubclickhouse.core.evolve;

import dev.pubsubclickhouse.core.schema.TableName;

/** What schema evolution changed or declined, for logs and metrics; every method may be empty. */
public interface EvolutionEvents {
  EvolutionEvents NONE = new EvolutionEvents() {};

  /** {@code ALTER TABLE … ADD COLUMN IF NOT EXISTS} ran and the column is there with this type. */
  default void columnAdded(TableName table, String column, String type) {}

  /**
   * The column was there, or appeared, with another type than this instance inferred (another
   * instance added it first): values are encoded for the column's type, or dead-lettered.
   */
  default void columnTypeDiffers(TableName table, String column, String inferred, String actual) {}

  /** A new field gets no column, for this reason; its values go to no column. */
  default void fieldNotAdded(TableName table, String field, String reason) {}
}
