package io.isthmus.ffi.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compares every struct size and every field offset and size the binding declares with what the C
 * compiler computes from the installed {@code <infiniband/verbs.h>} and {@code <rdma/rdma_cma.h>}.
 * The C program is generated from {@link StructRegistry}, so no declared field can be forgotten.
 */
class StructLayoutTest {
    private static final String INSTALL_HINT =
            "run tools/ensure-packages.sh libibverbs-dev librdmacm-dev gcc (the launcher's test setup installs them)";

    @TempDir
    Path dir;

    @Test
    void shouldMatchEveryOffsetAndSizeOfTheInstalledHeaders() throws Exception {
        Map<String, Long> expected = javaSide();
        Map<String, Long> actual = cSide(generateProgram());

        List<String> mismatches = new ArrayList<>();
        expected.forEach((key, javaValue) -> {
            Long cValue = actual.get(key);
            if (!javaValue.equals(cValue)) {
                mismatches.add(key + ": java=" + javaValue + ", c=" + cValue);
            }
        });
        assertThat(actual.keySet()).containsAll(expected.keySet());
        assertThat(mismatches)
                .as("layout mismatches with the installed headers")
                .isEmpty();
        assertThat(expected).hasSizeGreaterThan(200);
    }

    @Test
    void shouldDeclareTheOpsTableOffsetsTheDataPathUses() {
        assertThat(IbvContext.OPS_POLL_CQ).isEqualTo(8 + 88);
        assertThat(IbvContext.OPS_POST_SEND).isEqualTo(8 + 200);
        assertThat(IbvContext.OPS_POST_RECV).isEqualTo(8 + 208);
        assertThat(IbvSendWr.SIZE).isEqualTo(128);
        assertThat(IbvWc.SIZE).isEqualTo(48);
    }

    private static Map<String, Long> javaSide() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (GroupLayout layout : StructRegistry.layouts()) {
            String type = StructRegistry.cType(layout);
            values.put("sizeof " + type, layout.byteSize());
            for (CLayouts.Field field : CLayouts.fields(layout)) {
                values.put("offsetof " + type + " " + field.path(), field.offset());
                values.put("sizeof " + type + " " + field.path(), field.size());
            }
        }
        return values;
    }

    private String generateProgram() {
        StringBuilder c = new StringBuilder()
                .append("#include <stdio.h>\n#include <stddef.h>\n#include <poll.h>\n")
                .append("#include <infiniband/verbs.h>\n#include <rdma/rdma_cma.h>\n")
                .append("int main(void) {\n");
        for (GroupLayout layout : StructRegistry.layouts()) {
            String type = StructRegistry.cType(layout);
            c.append("  printf(\"sizeof ")
                    .append(type)
                    .append("=%zu\\n\", sizeof(")
                    .append(type)
                    .append("));\n");
            for (CLayouts.Field field : CLayouts.fields(layout)) {
                String path = field.path();
                c.append("  printf(\"offsetof ")
                        .append(type)
                        .append(' ')
                        .append(path)
                        .append("=%zu\\n\", offsetof(")
                        .append(type)
                        .append(", ")
                        .append(path)
                        .append("));\n");
                c.append("  printf(\"sizeof ")
                        .append(type)
                        .append(' ')
                        .append(path)
                        .append("=%zu\\n\", sizeof(((")
                        .append(type)
                        .append(" *)0)->")
                        .append(path)
                        .append("));\n");
            }
        }
        return c.append("  return 0;\n}\n").toString();
    }

    private Map<String, Long> cSide(String program) throws IOException, InterruptedException {
        for (String header : List.of("/usr/include/infiniband/verbs.h", "/usr/include/rdma/rdma_cma.h")) {
            if (!Files.exists(Path.of(header))) {
                fail(header + " is missing: " + INSTALL_HINT);
            }
        }
        Path source = Files.writeString(dir.resolve("layouts.c"), program);
        Path binary = dir.resolve("layouts");
        String compiler = Files.exists(Path.of("/usr/bin/cc")) ? "cc" : "gcc";
        String compileOutput = run(List.of(compiler, "-o", binary.toString(), source.toString()));
        assertThat(binary)
                .as("C compiler output: %s (%s)", compileOutput, INSTALL_HINT)
                .exists();
        String output = run(List.of(binary.toString()));
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.lastIndexOf('=');
            if (eq > 0) {
                values.put(
                        line.substring(0, eq),
                        Long.parseLong(line.substring(eq + 1).trim()));
            }
        }
        return values;
    }

    private String run(List<String> command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .start();
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command.get(0) + ": " + INSTALL_HINT, e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("%s did not finish", command)
                .isTrue();
        return output;
    }
}
