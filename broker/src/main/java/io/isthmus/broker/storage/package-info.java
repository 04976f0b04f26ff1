/**
 * The broker's small metadata files (the topic registry, committed offsets, the producer-id block) written so that a
 * crash at any point leaves either the old or the new contents, never a torn or empty file.
 */
package io.isthmus.broker.storage;
