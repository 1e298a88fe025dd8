package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.testing.TestDatabase;
import dev.pubsubclickhouse.testing.bigquery.LocalBigQuery;
import dev.pubsubclickhouse.testing.bigquery.StorageReadApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The job end to end, the same suite for each way of reading: the real BigQuery clients against
 * {@link LocalBigQuery} (BigQuery's REST API and the Storage Read API's gRPC service, serving
 * Avro), writing into the real local ClickHouse. The tests stand in one interface a topic; the
 * suite takes them all, so that every reader runs every topic.
 */
abstract class BackfillSuite
    implements ReadingTests,
        TypeMappingTests,
        DeadLetterTests,
        ResumeAndReRunTests,
        DryRunAndStartCheckTests,
        ServiceFailureTests,
        PasswordMaskingTests {
  protected final TestDatabase db;
  protected LocalBigQuery bigQuery;
  protected StorageReadApi storage;

  BackfillSuite(TestDatabase db) {
    this.db = db;
  }

  @BeforeEach
  void startBigQuery() throws Exception {
    bigQuery = LocalBigQuery.forTests(PROJECT);
    storage = bigQuery.storage();
  }

  @AfterEach
  void stopBigQuery() {
    bigQuery.close();
  }

  @Override
  public TestDatabase db() {
    return db;
  }

  @Override
  public LocalBigQuery bigQuery() {
    return bigQuery;
  }

  @Override
  public StorageReadApi storage() {
    return storage;
  }
}
