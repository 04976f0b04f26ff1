package io.isthmus.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for TLS tests, made with the running JDK's own {@code keytool}: the broker's PKCS12
 * keystore (key and certificate for {@code localhost} and {@code 127.0.0.1}), a PKCS12 truststore holding that
 * certificate for Java clients, and the same certificate as PEM for non-Java clients (kcat's {@code ssl.ca.location}).
 *
 * @param keystore the broker's keystore
 * @param truststore the clients' truststore
 * @param pem the certificate in PEM
 * @param password the password of both stores and of the key
 */
public record TestCertificates(Path keystore, Path truststore, Path pem, String password) {
    /** Makes the certificate and its stores in {@code dir}. */
    public static TestCertificates create(final Path dir) throws IOException, InterruptedException {
        final String password = "isthmus-test-secret";
        final Path keystore = dir.resolve("broker.p12");
        final Path truststore = dir.resolve("clients.p12");
        final Path pem = dir.resolve("broker.pem");
        keytool(
                "-genkeypair",
                "-alias",
                "broker",
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "7",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-keystore",
                keystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password,
                "-keypass",
                password);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "broker",
                "-keystore",
                keystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password,
                "-file",
                pem.toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "broker",
                "-file",
                pem.toString(),
                "-keystore",
                truststore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                password);
        return new TestCertificates(keystore, truststore, pem, password);
    }

    private static void keytool(final String... args) throws IOException, InterruptedException {
        final Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
        final List<String> command = new ArrayList<>();
        command.add(java.resolveSibling("keytool").toString());
        command.addAll(List.of(args));
        final Process process =
                new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + output);
        }
    }
}
