package io.lakestream.lake;

import io.lakestream.client.TablePath;
import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * Called by a round between writing its data files and committing them: the moment a crash is most
 * interesting. Tests throw from here to stand for a crash; an exception fails the round exactly as
 * a failure of the commit would (the round's files are deleted, nothing is committed). Called on
 * the round's thread; must not keep the list. Rounds into Paimon (the lake-paimon module's {@code
 * PaimonTableTiering}) call it with an empty list: their files are Paimon's, not Iceberg data
 * files.
 */
@FunctionalInterface
public interface TieringHook {
  TieringHook NONE = (table, files) -> {};

  void beforeCommit(TablePath table, List<DataFile> files);
}
