package io.lakestream.catalog;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The tables of a warehouse by the canonical locations they occupy, sorted, so that the tables
 * whose locations may overlap a given one are found without visiting the others: the location
 * itself, each directory above it (one lookup per path level) and the range of locations below it.
 *
 * <p>It answers with <em>candidates</em>: a superset of the tables that occupy an overlapping
 * location. Its keeper ({@link TablePlacement}) adds a table's new locations before the commit that
 * places it there and removes old ones only after a commit that definitely moved or dropped the
 * table, and checks every candidate against the table's current metadata. Thread safe.
 */
final class PlacementIndex {
  private final NavigableMap<String, Set<TableIdentifier>> tablesByLocation = new TreeMap<>();
  private final Map<TableIdentifier, Set<String>> locationsByTable = new HashMap<>();

  /** Adds {@code canonicalLocations} to those the table occupies. */
  synchronized void add(TableIdentifier table, Collection<String> canonicalLocations) {
    for (String location : canonicalLocations) {
      String normal = normal(location);
      tablesByLocation.computeIfAbsent(normal, ignored -> new HashSet<>()).add(table);
      locationsByTable.computeIfAbsent(table, ignored -> new HashSet<>()).add(normal);
    }
  }

  /** Makes {@code canonicalLocations} the only locations the table occupies. */
  synchronized void set(TableIdentifier table, Collection<String> canonicalLocations) {
    remove(table);
    add(table, canonicalLocations);
  }

  /** Forgets every location of the table. */
  synchronized void remove(TableIdentifier table) {
    Set<String> locations = locationsByTable.remove(table);
    if (locations == null) {
      return;
    }
    for (String location : locations) {
      Set<TableIdentifier> tables = tablesByLocation.get(location);
      tables.remove(table);
      if (tables.isEmpty()) {
        tablesByLocation.remove(location);
      }
    }
  }

  /** Adds the locations of table {@code from} to those of table {@code to}. */
  synchronized void copy(TableIdentifier from, TableIdentifier to) {
    Set<String> locations = locationsByTable.get(from);
    if (locations != null) {
      add(to, List.copyOf(locations));
    }
  }

  /**
   * The tables with a location that is, lies in or contains one of {@code canonicalLocations}, and
   * possibly others (see the class comment).
   */
  synchronized Set<TableIdentifier> overlapping(Collection<String> canonicalLocations) {
    Set<TableIdentifier> found = new LinkedHashSet<>();
    for (String location : canonicalLocations) {
      String normal = normal(location);
      // The location itself, then each directory above it.
      for (int end = normal.length(); end > 0; end = normal.lastIndexOf('/', end - 1)) {
        addAll(found, tablesByLocation.get(normal.substring(0, end)));
      }
      // Every location below it: those that start with it and a '/', which sort between it
      // followed by '/' and it followed by '0', the next character.
      for (Set<TableIdentifier> tables :
          tablesByLocation.subMap(normal + "/", true, normal + "0", false).values()) {
        addAll(found, tables);
      }
    }
    return found;
  }

  synchronized int size() {
    return locationsByTable.size();
  }

  private static void addAll(Set<TableIdentifier> found, Set<TableIdentifier> tables) {
    if (tables != null) {
      found.addAll(tables);
    }
  }

  /**
   * A location without trailing slashes: {@link TableLocations#contains} treats {@code a} and
   * {@code a/} alike as the directory {@code a}, so both find the same entries.
   */
  static String normal(String location) {
    int end = location.length();
    while (end > 1 && location.charAt(end - 1) == '/') {
      end--;
    }
    return location.substring(0, end);
  }
}
