package io.isthmus.fuzz;

import java.util.Map;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Writes a request body by walking its real request schema (kafka-clients' own {@link Schema} for that API and
 * version): every field is present with the type the broker's parser expects, filled with {@link HostileValues}. With
 * probability {@code lieProbability} a length or count is written wrong while the content that follows keeps its true
 * size, which is how sizes and counts are mutated; tagged-field sections sometimes carry known tags with garbage.
 */
final class SchemaFuzzer {
    private static final int MAX_ARRAY = 4;
    private static final int MAX_DEPTH = 8;

    private final HostileValues values;
    private final RecordsFuzzer records;
    private final double lieProbability;

    SchemaFuzzer(final HostileValues values, final RecordsFuzzer records, final double lieProbability) {
        this.values = values;
        this.records = records;
        this.lieProbability = lieProbability;
    }

    void write(final FrameBuffer out, final Schema schema) {
        writeStruct(out, schema, 0);
    }

    private void writeStruct(final FrameBuffer out, final Schema schema, final int depth) {
        for (final BoundField field : schema.fields()) {
            writeValue(out, field.def, field.def.type, depth);
        }
    }

    private void writeValue(final FrameBuffer out, final Field field, final Type type, final int depth) {
        if (type instanceof TaggedFields tagged) {
            writeTaggedFields(out, tagged, depth);
        } else if (type instanceof Schema nested) {
            if (nested.isNullable()) {
                if (values.chance(0.1)) {
                    out.put((byte) -1);
                    return;
                }
                out.put((byte) 1);
            }
            writeStruct(out, nested, depth + 1);
        } else if (type instanceof CompactArrayOf || type instanceof ArrayOf) {
            writeArray(out, field, type, depth);
        } else {
            writePrimitive(out, field, type);
        }
    }

    private void writeArray(final FrameBuffer out, final Field field, final Type type, final int depth) {
        final boolean compact = type instanceof CompactArrayOf;
        if (type.isNullable() && values.chance(0.1)) {
            putLength(out, compact, -1);
            return;
        }
        final int count = depth >= MAX_DEPTH ? 0 : values.nextInt(MAX_ARRAY);
        putLength(out, compact, values.aLength(count, lieProbability));
        final Type element = type.arrayElementType().orElseThrow();
        for (int i = 0; i < count; i++) {
            writeValue(out, field, element, depth + 1);
        }
    }

    /** An array, string or bytes length: int32 or int16 by the caller, or compact (unsigned varint of length + 1). */
    private static void putLength(final FrameBuffer out, final boolean compact, final int length) {
        if (compact) {
            out.putUnsignedVarint(length + 1);
        } else {
            out.putInt(length);
        }
    }

    private void writePrimitive(final FrameBuffer out, final Field field, final Type type) {
        final String name = field.name.toLowerCase(java.util.Locale.ROOT);
        if (type == Type.BOOLEAN) {
            out.put((byte) (values.chance(0.05) ? values.nextInt(256) : values.nextInt(2)));
        } else if (type == Type.INT8) {
            out.put((byte) values.anInt());
        } else if (type == Type.INT16 || type == Type.UINT16) {
            out.putShort(values.anInt());
        } else if (type == Type.INT32 || type == Type.UNSIGNED_INT32) {
            out.putInt(name.contains("timeout") || name.contains("wait") ? values.aDuration() : values.anInt());
        } else if (type == Type.INT64) {
            out.putLong(values.aLong());
        } else if (type == Type.UUID) {
            final boolean zero = values.chance(0.3);
            out.putLong(zero ? 0 : values.random().nextLong());
            out.putLong(zero ? 0 : values.random().nextLong());
        } else if (type == Type.FLOAT64) {
            out.putLong(Double.doubleToRawLongBits(values.random().nextDouble()));
        } else if (type == Type.VARINT) {
            out.putVarint(values.anInt());
        } else if (type == Type.VARLONG) {
            out.putVarlong(values.aLong());
        } else if (type == Type.STRING || type == Type.NULLABLE_STRING) {
            writeString(out, type.isNullable(), false);
        } else if (type == Type.COMPACT_STRING || type == Type.COMPACT_NULLABLE_STRING) {
            writeString(out, type.isNullable(), true);
        } else if (type == Type.BYTES || type == Type.NULLABLE_BYTES) {
            writeBytes(out, type.isNullable(), false, values.someBytes(32));
        } else if (type == Type.COMPACT_BYTES || type == Type.COMPACT_NULLABLE_BYTES) {
            writeBytes(out, type.isNullable(), true, values.someBytes(32));
        } else if (type == Type.RECORDS || type == Type.NULLABLE_RECORDS) {
            writeBytes(out, type.isNullable(), false, records.next());
        } else if (type == Type.COMPACT_RECORDS || type == Type.COMPACT_NULLABLE_RECORDS) {
            writeBytes(out, type.isNullable(), true, records.next());
        } else {
            throw new IllegalStateException("a request field type the fuzzer does not know: field=" + field.name
                    + " type=" + type + " (" + type.getClass().getName() + ")");
        }
    }

    private void writeString(final FrameBuffer out, final boolean nullable, final boolean compact) {
        if (nullable && values.chance(0.1)) {
            if (compact) {
                out.putUnsignedVarint(0);
            } else {
                out.putShort(-1);
            }
            return;
        }
        final byte[] utf8 = HostileValues.utf8(values.aName());
        final int length = values.aLength(utf8.length, lieProbability);
        if (compact) {
            out.putUnsignedVarint(length + 1);
        } else {
            out.putShort(length);
        }
        out.putBytes(utf8);
    }

    private void writeBytes(final FrameBuffer out, final boolean nullable, final boolean compact, final byte[] bytes) {
        if (bytes == null || (nullable && values.chance(0.05))) {
            putLength(out, compact, -1);
            return;
        }
        putLength(out, compact, values.aLength(bytes.length, lieProbability));
        out.putBytes(bytes);
    }

    private void writeTaggedFields(final FrameBuffer out, final TaggedFields tagged, final int depth) {
        final Map<Integer, Field> known = tagged.fields();
        if (known.isEmpty() || !values.chance(0.1)) {
            if (values.chance(0.01)) {
                // Unknown tags must be skipped by size; an unknown tag with a lying size must not be trusted.
                out.putUnsignedVarint(1);
                out.putUnsignedVarint(10_000 + values.nextInt(1000));
                final byte[] garbage = values.someBytes(16);
                out.putUnsignedVarint(values.aLength(garbage.length, lieProbability));
                out.putBytes(garbage);
            } else {
                out.putUnsignedVarint(0);
            }
            return;
        }
        out.putUnsignedVarint(known.size());
        for (final Map.Entry<Integer, Field> entry : known.entrySet()) {
            out.putUnsignedVarint(entry.getKey());
            final FrameBuffer value = new FrameBuffer(64);
            writeValue(value, entry.getValue(), entry.getValue().type, depth + 1);
            out.putUnsignedVarint(values.aLength(value.length(), lieProbability));
            out.putBytes(value.array(), 0, value.length());
        }
    }
}
