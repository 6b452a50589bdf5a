//! Pooled timestamp queries for profiling: a stream writes a timestamp into
//! a free slot of a device-wide pool; the slot returns to the pool when both
//! the reader and the submission that wrote it are done with it.

use crate::device::DeviceShared;
use crate::error::{vk_error, Error, Result};
use ash::vk;
use std::sync::Arc;

/// Queries per `VkQueryPool`: enough for the profiling events of many
/// commands in flight without making a pool per command.
const QUERIES_PER_POOL: u32 = 256;

#[derive(Default)]
pub(crate) struct QueryPools {
    pools: Vec<vk::QueryPool>,
    free: Vec<(vk::QueryPool, u32)>,
}

impl QueryPools {
    /// Every pool, for destruction at device teardown.
    pub fn take_all(&mut self) -> Vec<vk::QueryPool> {
        self.free.clear();
        std::mem::take(&mut self.pools)
    }
}

/// One query of a pool, owned while a [`Timestamp`] or a pending submission
/// refers to it.
pub(crate) struct TimestampSlot {
    device: Arc<DeviceShared>,
    pub pool: vk::QueryPool,
    pub index: u32,
}

impl TimestampSlot {
    pub fn acquire(device: &Arc<DeviceShared>) -> Result<Arc<TimestampSlot>> {
        let mut pools = device.query_pools.lock();
        if pools.free.is_empty() {
            let info = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(QUERIES_PER_POOL);
            // SAFETY: the device is alive.
            let pool = unsafe { device.raw.create_query_pool(&info, None) }
                .map_err(|e| vk_error("vkCreateQueryPool", e))?;
            pools.pools.push(pool);
            pools
                .free
                .extend((0..QUERIES_PER_POOL).rev().map(|i| (pool, i)));
        }
        let Some((pool, index)) = pools.free.pop() else {
            return Err(Error::Other("timestamp query pool is empty".to_string()));
        };
        Ok(Arc::new(TimestampSlot {
            device: Arc::clone(device),
            pool,
            index,
        }))
    }
}

impl Drop for TimestampSlot {
    fn drop(&mut self) {
        self.device
            .query_pools
            .lock()
            .free
            .push((self.pool, self.index));
    }
}

/// A timestamp recorded by [`crate::CommandStream::write_timestamp`].
pub struct Timestamp {
    pub(crate) slot: Arc<TimestampSlot>,
}

impl Timestamp {
    /// The device timestamp in ticks (× `Limits::timestamp_period` ns), or
    /// `None` while the submission that writes it has not reached it. Call
    /// it after the submission was submitted.
    pub fn ticks(&self) -> Result<Option<u64>> {
        let mut data = [[0u64; 2]];
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WITH_AVAILABILITY;
        let device = &self.slot.device;
        // SAFETY: the query was reset and written by a submitted command
        // buffer; WITH_AVAILABILITY makes an unfinished query report 0
        // availability instead of stale data.
        let result = unsafe {
            device
                .raw
                .get_query_pool_results(self.slot.pool, self.slot.index, &mut data, flags)
        };
        match result {
            Ok(()) | Err(vk::Result::NOT_READY) => Ok((data[0][1] != 0).then_some(data[0][0])),
            Err(e) => Err(vk_error("vkGetQueryPoolResults", e)),
        }
    }

    /// [`Timestamp::ticks`] in nanoseconds of the device clock
    /// (× `Limits::timestamp_period`).
    pub fn nanoseconds(&self) -> Result<Option<u64>> {
        let period = f64::from(self.slot.device.info.limits.timestamp_period);
        Ok(self
            .ticks()?
            .map(|ticks| (ticks as f64 * period).round() as u64))
    }
}
