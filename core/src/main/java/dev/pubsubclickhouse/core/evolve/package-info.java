/**
 * Schema evolution: a field no column takes gets a column of its own ({@code ALTER TABLE … ADD
 * COLUMN IF NOT EXISTS}), typed from its value under a conservative policy, bounded, and safe when
 * many instances see the same new field at once.
 */
package dev.pubsubclickhouse.core.evolve;
