/** End-to-end tests of the RDMA datapaths on a real device (Soft-RoCE in the guest): isthmus clients and Kafka's. */
package io.isthmus.e2e.rdma;
