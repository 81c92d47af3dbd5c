# vllm-report: the bot process (`vllm-report serve`). See docs/deploy.md.
# The base image, pinned by digest (multi-architecture index) so every build starts from the same
# bytes; the tag it was taken from: python:3.11.14-slim-bookworm. To move to a newer one:
#   docker buildx imagetools inspect python:3.11-slim-bookworm   (the "Digest:" line)
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

# -- build: install the locked dependencies, then the package, into a virtual environment -----
FROM ${PYTHON_IMAGE} AS build
ENV VIRTUAL_ENV=/opt/venv \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv "$VIRTUAL_ENV"
# Dependencies first, exactly as locked (.ci/lock writes requirements.lock): this layer stays
# cached until the lock changes, whatever happens to the sources.
COPY requirements.lock ./
RUN "$VIRTUAL_ENV/bin/pip" install --no-cache-dir --no-deps --requirement requirements.lock
COPY pyproject.toml README.md ./
COPY config ./config
COPY digest ./digest
COPY bot ./bot
RUN "$VIRTUAL_ENV/bin/pip" install --no-cache-dir --no-deps --no-build-isolation . \
    && "$VIRTUAL_ENV/bin/pip" check \
    && "$VIRTUAL_ENV/bin/vllm-report" --version

# -- runtime: the virtual environment only, run by an unprivileged user -----------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VLLM_REPORT_DB=/data/mirror.sqlite3 \
    VLLM_REPORT_HTTP_PORT=8080 \
    VLLM_REPORT_HTTP_HOST=0.0.0.0 \
    SLACK_HOST=0.0.0.0 \
    VLLM_REPORT_LOG_JSON=true
RUN groupadd --system --gid 10001 vllm-report \
    && useradd --system --uid 10001 --gid vllm-report --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin vllm-report \
    && mkdir -p /data \
    && chown vllm-report:vllm-report /data
COPY --from=build /opt/venv /opt/venv
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
# 8080: /healthz and /metrics (VLLM_REPORT_HTTP_PORT); 3000: Slack HTTP mode (SLACK_PORT). Inside
# the container they listen on every interface of its own network (HOST 0.0.0.0): what reaches
# them is what compose publishes, on 127.0.0.1 of the host.
EXPOSE 8080 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.process.healthcheck"]
ENTRYPOINT ["vllm-report"]
CMD ["serve"]
