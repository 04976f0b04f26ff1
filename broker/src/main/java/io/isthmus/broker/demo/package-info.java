/** {@code ./isthmus demo}: the client demo against a broker embedded in the same process. */
package io.isthmus.broker.demo;
