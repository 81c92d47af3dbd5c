# vllm-report: the bot process (`vllm-report serve`). See docs/deploy.md.
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build: install the package and its dependencies into a virtual environment ---------------
FROM ${PYTHON_IMAGE} AS build
ENV VIRTUAL_ENV=/opt/venv \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv "$VIRTUAL_ENV"
COPY pyproject.toml README.md ./
COPY config ./config
COPY digest ./digest
COPY bot ./bot
RUN "$VIRTUAL_ENV/bin/pip" install --no-cache-dir . \
    && "$VIRTUAL_ENV/bin/vllm-report" --help > /dev/null

# -- runtime: the virtual environment only, run by an unprivileged user -----------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    VLLM_REPORT_DB=/data/mirror.sqlite3 \
    VLLM_REPORT_HTTP_PORT=8080 \
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
EXPOSE 8080
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.process.healthcheck"]
ENTRYPOINT ["vllm-report"]
CMD ["serve"]
