package io.isthmus.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeResourceTest {
    private final List<String> released = new ArrayList<>();

    private final class Fake extends NativeResource {
        private final String name;

        Fake(String kind, String name, NativeResource... dependencies) {
            super(kind, dependencies);
            this.name = name;
        }

        void use() {
            checkOpen();
        }

        @Override
        protected String details() {
            return "name=" + name;
        }

        @Override
        protected void release() {
            released.add(name);
        }
    }

    @Test
    void shouldRefuseToCloseWhileDependentsAreOpen() {
        Fake pd = new Fake("ibv_pd", "pd");
        Fake mr = new Fake("ibv_mr", "mr", pd);

        assertThatThrownBy(pd::close)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot close ibv_pd(name=pd)")
                .hasMessageContaining("1 dependent resource(s) still open [ibv_mr(name=mr)]");
        assertThat(pd.isClosed()).isFalse();
        assertThat(released).isEmpty();

        mr.close();
        pd.close();
        assertThat(released).containsExactly("mr", "pd");
    }

    @Test
    void shouldThrowOnUseAfterClose() {
        Fake cq = new Fake("ibv_cq", "cq");
        cq.close();

        assertThatThrownBy(cq::use).isInstanceOf(IllegalStateException.class).hasMessage("ibv_cq is closed: name=cq");
    }

    @Test
    void shouldReleaseOnlyOnce() {
        Fake qp = new Fake("ibv_qp", "qp");
        qp.close();
        qp.close();

        assertThat(released).containsExactly("qp");
    }

    @Test
    void shouldRefuseToCreateFromAClosedDependency() {
        Fake context = new Fake("ibv_context", "ctx");
        context.close();

        assertThatThrownBy(() -> new Fake("ibv_pd", "pd", context))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ibv_context is closed: name=ctx");
    }

    @Test
    void shouldTrackSeveralDependencies() {
        Fake pd = new Fake("ibv_pd", "pd");
        Fake cq = new Fake("ibv_cq", "cq");
        Fake qp = new Fake("ibv_qp", "qp", pd, cq, null);

        assertThat(cq.openDependents()).containsExactly("ibv_qp(name=qp)");
        qp.close();
        cq.close();
        pd.close();
        assertThat(released).containsExactly("qp", "cq", "pd");
    }
}
